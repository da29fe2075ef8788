import { describe, expect, it } from 'vitest';
import { sequentialRoundTrips, type DdbCall } from '../../../lib/store/client.js';

const call = (start: number, end: number): DdbCall => ({ command: 'GetItem', start, end, rcu: 0, wcu: 0 });

describe('sequentialRoundTrips', () => {
  it('counts parallel calls as one round trip', () => {
    expect(sequentialRoundTrips([call(0, 5), call(0, 4), call(1, 6)])).toBe(1);
  });

  it('counts a call that starts after another ends as a second round trip', () => {
    expect(sequentialRoundTrips([call(0, 5), call(1, 3), call(6, 8)])).toBe(2);
  });

  it('is zero for no calls', () => {
    expect(sequentialRoundTrips([])).toBe(0);
  });
});
