import { describe, expect, it } from 'vitest';
import { newUlid } from '../../../lib/domain/ids.js';
import { confirmLive, expectLive, forgetLive } from '../../../lib/http/live-credentials.js';

const now = Date.parse('2026-11-23T10:00:00Z');
const later = now + 3_600_000;

describe('live credentials', () => {
  it('expects nothing of a credential that never authenticated here', () => {
    expect(expectLive(newUlid(), now)).toBe(false);
  });

  it('expects a credential that authenticated lately to authenticate again', () => {
    const id = newUlid();
    confirmLive(id, later, now);
    expect(expectLive(id, now + 1_000)).toBe(true);
  });

  it('keeps one expectation open per credential until authentication decides', () => {
    const id = newUlid();
    confirmLive(id, later, now);
    expect(expectLive(id, now + 1)).toBe(true);
    expect(expectLive(id, now + 2)).toBe(false);
    confirmLive(id, later, now + 3);
    expect(expectLive(id, now + 4)).toBe(true);
  });

  it('stops expecting once the credential expires', () => {
    const id = newUlid();
    confirmLive(id, now + 500, now);
    expect(expectLive(id, now + 500)).toBe(false);
  });

  it('stops expecting five minutes after the last confirmation', () => {
    const id = newUlid();
    confirmLive(id, later, now);
    expect(expectLive(id, now + 5 * 60_000 + 1)).toBe(false);
  });

  it('forgets a credential that failed', () => {
    const id = newUlid();
    confirmLive(id, later, now);
    forgetLive(id);
    expect(expectLive(id, now + 1)).toBe(false);
  });
});
