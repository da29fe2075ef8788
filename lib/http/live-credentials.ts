/**
 * Credentials this function instance has seen authenticate. Caller budgets are charged only for a
 * credential that authenticates (a dead one must cost no live user anything), yet a single-resource
 * read must stay one sequential round trip. So a credential that authenticated recently here has
 * its caller counters updated in parallel with the authentication reads, on the expectation that
 * it still authenticates; every other credential is counted only after authentication succeeded.
 * A credential that fails after all is forgotten and its hits are taken back, and only one
 * such expectation per credential is open at a time, so a revoked credential costs nothing lasting
 * and at most one transient hit per instance.
 */
const CONFIRMED_FOR_MS = 5 * 60_000;
/** A request that never reached authentication (an ingress 429) must not hold the slot for long. */
const OPEN_FOR_MS = 10_000;
const CAPACITY = 10_000;

interface Entry {
  confirmedAt: number;
  expiresAt: number;
  openSince?: number;
}

const entries = new Map<string, Entry>();

/** Whether to count this credential's caller budgets before authentication; opens the expectation. */
export function expectLive(tokenId: string, now: number): boolean {
  const entry = entries.get(tokenId);
  if (!entry) return false;
  if (now - entry.confirmedAt > CONFIRMED_FOR_MS || now >= entry.expiresAt) {
    entries.delete(tokenId);
    return false;
  }
  if (entry.openSince !== undefined && now - entry.openSince < OPEN_FOR_MS) return false;
  entry.openSince = now;
  return true;
}

/** The credential authenticated: later requests may be counted in parallel until it expires. */
export function confirmLive(tokenId: string, expiresAt: number, now: number): void {
  entries.delete(tokenId);
  if (entries.size >= CAPACITY) entries.delete(entries.keys().next().value!);
  entries.set(tokenId, { confirmedAt: now, expiresAt });
}

/** The credential failed authentication: nothing is counted for it before authentication again. */
export function forgetLive(tokenId: string): void {
  entries.delete(tokenId);
}
