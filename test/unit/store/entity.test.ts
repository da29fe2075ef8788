import { afterEach, describe, expect, it, vi } from 'vitest';
import { toRelease } from '../../../lib/store/catalogue-releases.js';
import * as z from 'zod';
import { logger } from '../../../lib/log.js';
import { parseEach, parseStored, StoredItemInvalid, storedSchema } from '../../../lib/store/entity.js';

const stored = {
  PK: 'CATALOGUE',
  SK: 'RELEASE#01J',
  entity: 'catalogue-release',
  id: '01J',
  version: '2025.03.1',
  title: 'ISM',
  published: null,
  entries: 3,
  controls: 2,
  principles: 1,
  status: 'complete',
  digest: 'abc',
  sample: false,
  imported_at: '2026-01-01T00:00:00.000Z',
};

describe('stored entities', () => {
  it('reads a stored item as its domain value without the table keys', () => {
    const { PK: _pk, SK: _sk, entity: _entity, ...release } = stored;
    expect(toRelease(stored)).toEqual(release);
  });

  it('refuses a stored item that fails its schema, naming its key', () => {
    expect(() => toRelease({ ...stored, status: 'lost' })).toThrow(StoredItemInvalid);
    expect(() => toRelease({ ...stored, status: 'lost' })).toThrow(/CATALOGUE\|RELEASE#01J/);
  });
});

interface Shape {
  id: string;
  note: string | null;
  detail: { size: number };
  tags?: string[];
}

describe('a stored schema checked against its domain type', () => {
  const agreeing = z.looseObject({
    id: z.string(),
    note: z.string().nullable(),
    detail: z.looseObject({ size: z.number() }),
    tags: z.array(z.string()).optional(),
  });

  it('compiles when it reads exactly the type, loose at every depth', () => {
    expect(storedSchema<Shape>()(agreeing)).toBe(agreeing);
  });

  it('does not compile when it refuses a value the type allows, at any depth', () => {
    // @ts-expect-error a null note is written and must parse
    storedSchema<Shape>()(agreeing.extend({ note: z.string() }));
    // @ts-expect-error a size of the nested object is a number
    storedSchema<Shape>()(agreeing.extend({ detail: z.looseObject({ size: z.string() }) }));
    expect(agreeing.safeParse({ id: 'a', note: null, detail: { size: 1 } }).success).toBe(true);
  });

  it('does not compile when it parses what the type does not hold, or leaves an attribute unnamed', () => {
    // @ts-expect-error an absent id is no Shape
    storedSchema<Shape>()(agreeing.extend({ id: z.string().optional() }));
    // @ts-expect-error tags are unnamed
    storedSchema<Shape>()(agreeing.omit({ tags: true }));
    expect(agreeing.safeParse({ note: null, detail: { size: 1 } }).success).toBe(false);
  });
});

describe('parseEach', () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  const schema = z.looseObject({ n: z.number() });
  const read = (item: { PK: string; SK: string }) => parseStored(schema, item);

  it('reads every well-formed record and logs each malformed one by its key, without stopping', () => {
    const errors = vi.spyOn(logger, 'error').mockImplementation(() => undefined);
    const records = [
      { PK: 'A', SK: 'R', n: 'x' },
      { PK: 'B', SK: 'R', n: 2 },
    ];
    expect(parseEach('record', records, read)).toEqual([{ n: 2 }]);
    expect(errors).toHaveBeenCalledWith('skipped a malformed record', expect.objectContaining({ key: 'A|R' }));
  });

  it('lets an error other than a malformed record through', () => {
    expect(() =>
      parseEach('record', [{ PK: 'A', SK: 'R' }], () => {
        throw new Error('read failed');
      }),
    ).toThrow('read failed');
  });
});
