import { brotliCompressSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import {
  DIGEST_SHARDS,
  filterDigestDelta,
  filterDigestItems,
  indexEntries,
  matchingPositions,
  positionCode,
  positionOfCode,
  rangesFor,
  readDigest,
  readIndex,
  type ListFilter,
} from '../../../lib/store/control-filters.js';
import { StoredItemInvalid } from '../../../lib/store/entity.js';
import { controlPositionKey } from '../../../lib/store/projects.js';

const base = { position: 70, workflow_state: 'editing', implementation_status: null, applicability: 'y' as const };

describe('filter digest', () => {
  it('codes positions in two characters up to 4,095 and three beyond', () => {
    expect([0, 63, 64, 1105, 4095].map(positionCode).map((c) => c.length)).toEqual([2, 2, 2, 2, 2]);
    expect(positionCode(4096)).toHaveLength(3);
    for (const p of [0, 1, 63, 64, 1105, 4095, 4096, 70_000]) expect(positionOfCode(positionCode(p))).toBe(p);
  });

  it('puts each control in the set of its state, its status and its exclusion, in the shard of its position', () => {
    const shard = 70 % DIGEST_SHARDS;
    const items = filterDigestItems(
      'P',
      [base, { ...base, position: 70 + DIGEST_SHARDS, implementation_status: 'planned', applicability: 'n' }, { ...base, position: 71 }],
      'now',
    );
    expect(items).toHaveLength(DIGEST_SHARDS);
    expect(items[shard]).toMatchObject({
      SK: `INDEX#FILTERS#${shard}`,
      's:editing': new Set([positionCode(70), positionCode(70 + DIGEST_SHARDS)]),
      'i:planned': new Set([positionCode(70 + DIGEST_SHARDS)]),
      'a:n': new Set([positionCode(70 + DIGEST_SHARDS)]),
      written_at: 'now',
    });
    expect(items[(shard + 1) % DIGEST_SHARDS]).toMatchObject({ 's:editing': new Set([positionCode(71)]) });
  });

  it('moves a control out of the sets it left and into those it joined, with the revision', () => {
    const delta = filterDigestDelta('P', base, { ...base, workflow_state: 'ready_for_assessment', implementation_status: 'implemented' });
    expect(delta).toMatchObject({
      kind: 'update',
      key: { SK: `INDEX#FILTERS#${70 % DIGEST_SHARDS}` },
      update: 'ADD #j0 :j0, #j1 :j1, #rev :one DELETE #l0 :l0',
    });
    expect(delta!.kind === 'update' && delta!.names).toMatchObject({ '#j0': 's:ready_for_assessment', '#j1': 'i:implemented', '#l0': 's:editing' });
  });

  it('writes nothing when no filtered field changes', () => {
    expect(filterDigestDelta('P', base, { ...base })).toBeUndefined();
  });
});

describe('control index', () => {
  const entry = { position: 3, catalogue_id: 'ism-principle-gov-01', label: 'GOV-01', title: 'Executive Accountability', essential_eight: ['ML2', 'ML3'] };
  const index = (label = 'GOV-01') =>
    readIndex({
      PK: 'P',
      SK: 'I',
      entries: new Uint8Array(
        indexEntries([
          { ...entry, position: 900 },
          { ...entry, label },
          { ...entry, position: 4 },
        ]),
      ),
    });
  const shards = Array.from({ length: DIGEST_SHARDS }, (_, shard) => ({
    PK: 'P',
    SK: `F${shard}`,
    written_at: 'now',
    revision: 2,
    's:editing': new Set([3, 4, 900].filter((p) => p % DIGEST_SHARDS === shard).map(positionCode)),
  }));
  const digest = readDigest(shards);

  it('keeps the positions in catalogue order', () => {
    expect(index()?.positions).toEqual([3, 4, 900].map(controlPositionKey));
  });

  it('matches identifier, label and title text, case-insensitively, and the Essential Eight levels', () => {
    const three = (label: string, f: ListFilter) => matchingPositions(index(label), digest, f)?.includes(controlPositionKey(3));
    for (const text of ['gov-01', 'principle', 'accountab']) expect(three('GOV-01', { text })).toBe(true);
    expect(three('Board-1', { text: 'board' })).toBe(true);
    expect(three('GOV-01', { text: 'board' })).toBe(false);
    expect(three('GOV-01', { essential_eight: 'ML3' })).toBe(true);
    expect(three('GOV-01', { essential_eight: 'ML1' })).toBe(false);
  });

  it('finds the controls of a state across the shards', () => {
    expect(matchingPositions(index(), digest, { workflow_state: 'editing' })).toEqual([3, 4, 900].map(controlPositionKey));
  });

  it('cannot answer without every shard of the digest, complete', () => {
    const { written_at: _, ...partial } = shards[1]!;
    expect(readDigest([shards[0], partial, ...shards.slice(2)])).toBeUndefined();
    expect(readDigest([undefined, ...shards.slice(1)])).toBeUndefined();
    expect(matchingPositions(index(), undefined, { text: 'gov' })).toBeUndefined();
  });

  it('reads each set of the digest across its shards, without the revision', () => {
    expect([...digest!.keys()]).toEqual(['s:editing']);
    expect(digest!.get('s:editing')).toEqual(expect.arrayContaining([3, 4, 900].map(positionCode)));
  });

  it('refuses a digest set that is not a set of position codes, naming the shard', () => {
    const broken = () => readDigest([{ ...shards[0]!, 'i:planned': ['AB'] }, ...shards.slice(1)]);
    expect(broken).toThrow(StoredItemInvalid);
    expect(broken).toThrow('P|F0');
  });

  it('is undefined for a project without an index', () => {
    expect(readIndex(undefined)).toBeUndefined();
  });

  it('refuses entries that are not a compressed index, naming the item', () => {
    const broken = () => readIndex({ PK: 'P', SK: 'I', entries: new Uint8Array([1, 2, 3]) });
    expect(broken).toThrow(StoredItemInvalid);
    expect(broken).toThrow('P|I');
  });

  it('refuses compressed entries without their rows, naming the item', () => {
    const entries = new Uint8Array(brotliCompressSync(JSON.stringify({ steps: [3] })));
    expect(() => readIndex({ PK: 'P', SK: 'I', entries })).toThrow(/P\|I.*does not match its schema/);
  });

  it('pages but cannot filter from an index written before it carried the entries', () => {
    const legacy = readIndex({ PK: 'P', SK: 'I', positions: `${controlPositionKey(3)}${controlPositionKey(4)}` });
    expect(legacy?.positions).toEqual([controlPositionKey(3), controlPositionKey(4)]);
    expect(matchingPositions(legacy, digest, { text: 'gov' })).toBeUndefined();
  });
});

describe('page reads', () => {
  const all = Array.from({ length: 20 }, (_, i) => controlPositionKey(i * 2));

  it('reads neighbours, and controls up to two apart, in one range', () => {
    const wanted = [all[0]!, all[1]!, all[4]!, all[8]!, all[9]!];
    expect(rangesFor(all, wanted)).toEqual([
      { from: all[0], to: all[4] },
      { from: all[8], to: all[9] },
    ]);
  });

  it('reads nothing for an empty page', () => {
    expect(rangesFor(all, [])).toEqual([]);
  });
});
