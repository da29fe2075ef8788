import { describe, expect, it } from 'vitest';
import { citationOf, type CaptureSnapshot } from '../../../lib/domain/evidence-capture.js';

const AT = '2026-10-20T04:05:06.000Z';
const upload = { id: 'E1', kind: 'upload', status: 'ready', sha256: 'b'.repeat(64) };
const snapshot = (over: Partial<CaptureSnapshot> = {}): CaptureSnapshot => ({ captured_at: AT, versions: [], acknowledged_warnings: [], ...over });

describe('citationOf', () => {
  it('cites an item the capture pinned with the version and digest the capture recorded, not the live item’s', () => {
    const pinned = snapshot({ versions: [{ evidence_id: 'E1', version: 2, sha256: 'c'.repeat(64) }] });
    expect(citationOf(upload, pinned)).toEqual({ kind: 'pinned', captured_at: AT, version: 2, sha256: 'c'.repeat(64) });
  });

  it('cites a failed upload the capture only acknowledged as a warning, never as pinned', () => {
    const failed = { ...upload, status: 'error', sha256: 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855' };
    expect(citationOf(failed, snapshot({ acknowledged_warnings: ['E1'] }))).toEqual({ kind: 'acknowledged_warning', captured_at: AT, reason: 'not_ready' });
  });

  it('names the warning of a reference and of a live link for what they are', () => {
    const acknowledged = snapshot({ acknowledged_warnings: ['R1', 'L1'] });
    expect(citationOf({ id: 'R1', kind: 'external_reference', status: 'ready', sha256: null }, acknowledged)).toMatchObject({ reason: 'unverified' });
    expect(citationOf({ id: 'L1', kind: 'register_link', status: 'ready', sha256: null }, acknowledged)).toMatchObject({ reason: 'live_source' });
  });

  it('cites an item as not captured before any capture and when it was added after the capture', () => {
    expect(citationOf(upload, null)).toEqual({ kind: 'not_captured' });
    expect(citationOf(upload, snapshot())).toEqual({ kind: 'not_captured' });
  });
});
