import { describe, expect, it } from 'vitest';
import { fileOf } from '../../../lib/repositories/file.js';

describe('fileOf', () => {
  it('names the bytes by their SHA-256 and size, with the commit and path they came from', () => {
    const bytes = Buffer.from('abc');
    expect(fileOf('a'.repeat(40), 'docs/policy.md', bytes)).toEqual({
      commit: 'a'.repeat(40),
      path: 'docs/policy.md',
      bytes,
      sha256: 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad',
      size: 3,
    });
  });
});
