import { describe, expect, it } from 'vitest';
import { decodeTime } from 'ulid';
import { base32, digestBase32, monotonicUlids, newUlid, Ulid, ULID_PATTERN } from '../../../lib/domain/ids.js';

describe('ULIDs', () => {
  it('accept 26 upper-case Crockford characters with a 48-bit time', () => {
    expect(ULID_PATTERN.test('01JD3Q5Z8X6Y7W2V9T4S3R2P1N')).toBe(true);
  });

  it('refuse lower case, a time past 48 bits and the letters Crockford leaves out', () => {
    expect(['01jd3q5z8x6y7w2v9t4s3r2p1n', '81JD3Q5Z8X6Y7W2V9T4S3R2P1N', '01JD3Q5Z8X6Y7W2V9T4S3R2P1U'].map((v) => Ulid.safeParse(v).success)).toEqual([
      false,
      false,
      false,
    ]);
  });
});

describe('base32', () => {
  it('writes a number in a fixed width, most significant first', () => {
    expect([base32(0, 4), base32(31, 2), base32(32, 2), base32(1691, 4)]).toEqual(['0000', '0Z', '10', '01MV']);
  });

  it('keeps string order the same as number order', () => {
    const numbers = [5, 31, 32, 1000, 1024, 9999];
    expect(numbers.map((n) => base32(n, 4)).sort()).toEqual(numbers.map((n) => base32(n, 4)));
  });
});

describe('digestBase32', () => {
  it('derives the same characters from the same text, and others from other text', () => {
    expect(digestBase32('release\nism-1691', 8)).toBe(digestBase32('release\nism-1691', 8));
    expect(digestBase32('release\nism-1692', 8)).not.toBe(digestBase32('release\nism-1691', 8));
  });

  it('writes only Crockford characters, as many as asked', () => {
    expect(digestBase32('x', 12)).toMatch(/^[0-9A-HJKMNP-TV-Z]{12}$/);
  });
});

describe('newUlid', () => {
  it('writes a ULID of the time given', () => {
    const id = newUlid(Date.UTC(2026, 10, 27));
    expect(Ulid.safeParse(id).success).toBe(true);
    expect(decodeTime(id)).toBe(Date.UTC(2026, 10, 27));
  });

  it('draws a different random part each time, past the end of one pool of random bytes', () => {
    // 16 bytes for each ULID: 1,000 of them draw on the 4 KB pool four times over.
    const randomParts = Array.from({ length: 1000 }, () => newUlid(1_700_000_000_000).slice(10));
    expect(new Set(randomParts).size).toBe(1000);
  });

  it('uses every character of the alphabet in the random part', () => {
    const characters = new Set(Array.from({ length: 200 }, () => newUlid().slice(10)).join(''));
    expect(characters.size).toBe(32);
  });
});

describe('monotonicUlids', () => {
  it('keeps creation order within one millisecond', () => {
    const next = monotonicUlids();
    const ids = Array.from({ length: 50 }, () => next(1_700_000_000_000));
    expect([...ids].sort()).toEqual(ids);
  });
});
