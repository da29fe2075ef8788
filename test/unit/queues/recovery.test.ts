import { describe, expect, it } from 'vitest';
import { QUEUES } from '../../../lib/queues/queues.js';
import { LEASE_SECONDS, SWEEP_INTERVAL_SECONDS, stalled } from '../../../lib/queues/recovery.js';

const at = (seconds: number) => new Date(Date.UTC(2026, 0, 1) + seconds * 1000);
const iso = (seconds: number) => at(seconds).toISOString();

describe('job recovery', () => {
  it('keeps every lease within its queue\u2019s visibility timeout, so that SQS\u2019s redelivery of a crashed job can take it over', () => {
    for (const queue of ['populate', 'import', 'generate', 'recalculate', 'purge'] as const)
      expect(QUEUES[queue].visibilityTimeoutSeconds).toBeGreaterThanOrEqual(LEASE_SECONDS);
  });

  it('sweeps more often than a lease lasts, so that recovery follows a lease running out within one tick', () => {
    expect(SWEEP_INTERVAL_SECONDS).toBeLessThan(LEASE_SECONDS);
  });

  it('judges work with a live lease alive, however old', () => {
    expect(stalled({ lease_until: iso(1000) }, iso(0), at(999))).toBe(false);
  });

  it('judges work whose lease has run out stalled', () => {
    expect(stalled({ lease_until: iso(1000) }, iso(0), at(1001))).toBe(true);
  });

  it('gives work no worker has leased a lease\u2019s length from its request', () => {
    expect(stalled({}, iso(0), at(LEASE_SECONDS - 1))).toBe(false);
    expect(stalled({}, iso(0), at(LEASE_SECONDS + 1))).toBe(true);
  });

  it('gives work the sweep queued again a lease\u2019s length before judging it again', () => {
    expect(stalled({ lease_until: iso(0), requeued_at: iso(500) }, iso(0), at(500 + LEASE_SECONDS - 1))).toBe(false);
    expect(stalled({ lease_until: iso(0), requeued_at: iso(500) }, iso(0), at(500 + LEASE_SECONDS + 1))).toBe(true);
  });
});
