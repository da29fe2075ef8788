import { beforeEach, describe, expect, it } from 'vitest';
import { mockClient } from 'aws-sdk-client-mock';
import { DynamoDBDocumentClient, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { metadataOf } from '../../../lib/domain/evidence.js';
import { resetDdbClient } from '../../../lib/store/client.js';
import { StoredItemInvalid } from '../../../lib/store/entity.js';
import { asLinkClaim, evidenceItem, evidenceLinkCreateWrites, readyFilesPage, toEvidence } from '../../../lib/store/evidence.js';
import { keys } from '../../../lib/store/keys.js';
import { keyString } from '../../../lib/store/read.js';
import { buildEvidence, buildUploadEvidence } from '../../support/factories.js';
import { readsStoredEntity } from '../../support/stored-entities.js';
import { controlEvidence } from '../../../lib/store/evidence.js';

const stored = evidenceItem(
  buildEvidence({
    kind: 'register_link',
    ...metadataOf({ title: 'Asset register', classification: 'OS', collected_on: '2026-01-01' }),
    source: { kind: 'register', definition_id: '01M84T2AZS9C8TZ6EGZG2RXYH8' },
  }),
);

describe('a stored evidence item', () => {
  readsStoredEntity(toEvidence, stored, { source: { kind: 'register' } });

  it('reads an upload with the file fields the scan pipeline mirrors', () => {
    const upload = buildUploadEvidence();
    expect(toEvidence(evidenceItem(upload))).toMatchObject(upload);
  });
});

describe('asLinkClaim', () => {
  const link = buildEvidence({ kind: 'register_link', source: { kind: 'register', definition_id: '01M84T2AZS9C8TZ6EGZG2RXYH8' } });
  const [write] = evidenceLinkCreateWrites({ ...link, source: { kind: 'register', definition_id: '01M84T2AZS9C8TZ6EGZG2RXYH8' } }, () => new Error('taken'));
  const claim = write?.kind === 'put' ? write.item : {};

  it('reads the link a claim names, as evidenceLinkCreateWrites writes it', () => {
    expect(asLinkClaim({ ...keys.evidenceLinkClaim(link.project_id, link.control_id, 'd'), ...claim })).toEqual({ evidence_id: link.id });
  });

  it('refuses a claim without its link, naming its key', () => {
    const key = keys.evidenceLinkClaim(link.project_id, link.control_id, 'd');
    expect(() => asLinkClaim({ ...key, entity: 'evidence-link-claim' })).toThrow(`${key.PK}|${key.SK}`);
  });
});

describe('readyFilesPage', () => {
  const ddb = mockClient(DynamoDBDocumentClient);
  beforeEach(() => {
    ddb.reset();
    resetDdbClient();
  });
  const upload = buildUploadEvidence();

  it("reads the index's ready uploads as evidence items with their file facts", async () => {
    ddb.on(QueryCommand).resolves({ Items: [evidenceItem(upload)] });
    expect(await readyFilesPage(upload.project_id, 'other', { number: 1, size: 10 })).toEqual({ items: [toEvidence(evidenceItem(upload))], hasMore: false });
  });

  it('refuses an indexed upload without its file name, naming its key', async () => {
    const { file_name: _f, ...unnamed } = evidenceItem(upload);
    ddb.on(QueryCommand).resolves({ Items: [unnamed] });
    const read = () => readyFilesPage(upload.project_id, 'other', { number: 1, size: 10 });
    await expect(read()).rejects.toThrow(StoredItemInvalid);
    await expect(read()).rejects.toThrow(keyString(keys.evidence(upload.project_id, upload.control_id, upload.id)));
  });
});

describe("a control's evidence head", () => {
  const e = buildEvidence({ project_id: 'P', control_id: 'C' });
  const head = keys.evidenceHead('P', 'C');

  it('reads the revision and count beside the items, 0 before the first change', () => {
    expect(controlEvidence('P', 'C', [{ ...head, entity: 'evidence-head', revision: 3, count: 1 }, evidenceItem(e)])).toMatchObject({ revision: 3, count: 1 });
    expect(controlEvidence('P', 'C', [])).toEqual({ revision: 0, count: 0, items: [] });
  });

  it('refuses a head whose count is malformed, naming its key', () => {
    const read = () => controlEvidence('P', 'C', [{ ...head, revision: 3, count: '1' }]);
    expect(read).toThrow(StoredItemInvalid);
    expect(read).toThrow(keyString(head));
  });
});
