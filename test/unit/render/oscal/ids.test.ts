import { describe, expect, it } from 'vitest';
import { uuidsOf } from '../../../../lib/render/oscal/ids.js';

describe('generation UUIDs', () => {
  it('are version 5 UUIDs of the RFC 4122 variant', () => {
    expect(uuidsOf('01JGEN')('finding', 'c1')).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });

  it('are the same for the same generation and identity', () => {
    expect(uuidsOf('01JGEN')('finding', 'c1')).toBe(uuidsOf('01JGEN')('finding', 'c1'));
  });

  it('differ between generations and between identities', () => {
    const ids = new Set([
      uuidsOf('01JGEN')('finding', 'c1'),
      uuidsOf('01JGEM')('finding', 'c1'),
      uuidsOf('01JGEN')('finding', 'c2'),
      uuidsOf('01JGEN')('findingc1'),
    ]);
    expect(ids.size).toBe(4);
  });
});
