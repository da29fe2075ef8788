import { describe, expect, it } from 'vitest';
import {
  ControlIdentifier,
  CreateAssuranceRelease,
  CreateExternalProvider,
  ismVersionLocked,
  publicationErrors,
  releaseDateErrors,
  selectionDeltas,
  UpdateAssuranceRelease,
} from '../../../lib/domain/providers.js';

const sel = (provider_id: string, release_id: string) => ({ provider_id, release_id });

describe('releaseDateErrors', () => {
  it('accepts valid_until on or after assessed_on', () => {
    expect(releaseDateErrors({ assessed_on: '2026-01-01', valid_until: '2026-01-01' }, new Set())).toEqual([]);
  });

  it('accepts either date missing', () => {
    expect(releaseDateErrors({ assessed_on: null, valid_until: '2020-01-01' }, new Set(['valid_until']))).toEqual([]);
  });

  it('points at valid_until when it falls before assessed_on', () => {
    expect(releaseDateErrors({ assessed_on: '2026-02-01', valid_until: '2026-01-01' }, new Set(['valid_until']))).toEqual([
      expect.objectContaining({ pointer: '/valid_until', code: 'valid_until_before_assessed_on' }),
    ]);
  });

  it('points at assessed_on when the patch moved only that date past the stored valid_until', () => {
    expect(releaseDateErrors({ assessed_on: '2026-02-01', valid_until: '2026-01-01' }, new Set(['assessed_on']))[0]?.pointer).toBe('/assessed_on');
  });
});

describe('publicationErrors', () => {
  it('needs the assessment date', () => {
    expect(publicationErrors({ assessed_on: null })).toEqual([expect.objectContaining({ pointer: '/assessed_on', code: 'release_incomplete' })]);
  });

  it('accepts a release with its assessment date', () => {
    expect(publicationErrors({ assessed_on: '2026-01-01' })).toEqual([]);
  });
});

describe('ismVersionLocked', () => {
  it('locks the ISM release once the release holds assertions', () => {
    expect(ismVersionLocked({ assertions: 1 })).toBe(true);
  });

  it('leaves it open without assertions', () => {
    expect(ismVersionLocked({ assertions: 0 })).toBe(false);
  });
});

describe('selectionDeltas', () => {
  it('counts a newly selected release on its provider', () => {
    expect(selectionDeltas([], [sel('P1', 'R1')])).toEqual(new Map([['P1', 1]]));
  });

  it('uncounts a release no longer selected', () => {
    expect(selectionDeltas([sel('P1', 'R1')], [])).toEqual(new Map([['P1', -1]]));
  });

  it('moves nothing for a selection kept', () => {
    expect(selectionDeltas([sel('P1', 'R1')], [sel('P1', 'R1')])).toEqual(new Map());
  });

  it('counts a release named twice once', () => {
    expect(selectionDeltas([], [sel('P1', 'R1'), sel('P1', 'R1')])).toEqual(new Map([['P1', 1]]));
  });

  it('moves nothing when one release of a provider replaces another', () => {
    expect(selectionDeltas([sel('P1', 'R1'), sel('P2', 'R3')], [sel('P1', 'R2')])).toEqual(new Map([['P2', -1]]));
  });
});

describe('ControlIdentifier', () => {
  it('lower-cases an identifier written as people write it', () => {
    expect(ControlIdentifier().parse('ISM-1691')).toBe('ism-1691');
  });

  it('refuses spaces and slashes', () => {
    expect(ControlIdentifier().safeParse('ism 1691').success).toBe(false);
    expect(ControlIdentifier().safeParse('ism/1691').success).toBe(false);
  });
});

describe('provider and release bodies', () => {
  it('refuses a website that is not http or https', () => {
    expect(CreateExternalProvider().safeParse({ name: 'X', website: 'ftp://files.example' }).success).toBe(false);
  });

  it('accepts an https website', () => {
    expect(CreateExternalProvider().safeParse({ name: 'X', website: 'https://cloud.example/assurance' }).success).toBe(true);
  });

  it('refuses a release without a version label', () => {
    expect(CreateAssuranceRelease().safeParse({ name: 'IRAP', ism_version_id: '01JD3Q5Z8X6Y7W2V9T4S3R2P1N' }).success).toBe(false);
  });

  it('refuses server-owned release fields in a patch', () => {
    expect(UpdateAssuranceRelease().safeParse({ published_at: '2026-01-01T00:00:00Z' }).success).toBe(false);
  });
});
