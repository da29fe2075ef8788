import { describe, expect, it } from 'vitest';
import { sourceIdentity } from '../../../lib/domain/evidence.js';
import { CreateEvidenceLink, linkMetadataOf, sameSource, sourceOf, titleFrom } from '../../../lib/domain/evidence-links.js';

const A = '01M84T2AZS9C8TZ6EGZG2RXYHK';
const B = '01M84T2AZW5DBH673Z8AR39FF7';

describe('sourceIdentity', () => {
  it('names the source alone, whatever the metadata', () => {
    const plain = CreateEvidenceLink().parse({ kind: 'library_link', definition_id: A });
    const titled = CreateEvidenceLink().parse({ kind: 'library_link', definition_id: A, title: 'ISP', review_due: '2027-01-01' });
    expect(sourceIdentity(sourceOf(titled))).toBe(sourceIdentity(sourceOf(plain)));
  });

  it('tells kinds, definitions, files, paths and refs apart', () => {
    const identities = [
      { kind: 'register', definition_id: A },
      { kind: 'library', definition_id: A },
      { kind: 'library', definition_id: B },
      { kind: 'file', control_id: A, evidence_id: B },
      { kind: 'file', control_id: B, evidence_id: A },
      { kind: 'repository', connection_id: A, path: 'a/b', ref: 'main' },
      { kind: 'repository', connection_id: A, path: 'a', ref: 'b/main' },
      { kind: 'repository', connection_id: A, path: 'a/b', ref: 'v1' },
    ] as const;
    expect(new Set(identities.map(sourceIdentity)).size).toBe(identities.length);
    expect(sameSource(null, identities[0])).toBe(false);
  });
});

describe('linkMetadataOf', () => {
  it('keeps the metadata given and nothing of the source', () => {
    const body = CreateEvidenceLink().parse({ kind: 'repository_link', connection_id: A, path: 'p.md', ref: 'main', classification: 'OS', description: null });
    expect(linkMetadataOf(body)).toEqual({ classification: 'OS', description: null });
  });
});

describe('titleFrom', () => {
  it('keeps a name of up to 200 characters, and the end of a longer one', () => {
    expect(titleFrom(' report.pdf ')).toBe('report.pdf');
    const long = `${'d/'.repeat(150)}policy.md`;
    expect(titleFrom(long)).toHaveLength(200);
    expect(titleFrom(long).endsWith('/policy.md')).toBe(true);
  });
});
