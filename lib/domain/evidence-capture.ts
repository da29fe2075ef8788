/**
 * Evidence capture on assessing_to_assessed (seed, States): the assessed conclusion pins the
 * immutable versions of the evidence it rests on. Pure over the control's evidence items; an item
 * that cannot be captured or verified is a warning the assessor must acknowledge before the
 * transition proceeds.
 */
export interface EvidenceItem {
  id: string;
  kind: string;
  title: string | null;
  /** File items: pending, ready or error; other kinds are ready when recorded. */
  status: string;
  version: number;
  /** The content digest of a file item; other kinds have none. */
  sha256: string | null;
}

export interface CapturedVersion {
  evidence_id: string;
  version: number;
  sha256: string | null;
}

export type CaptureWarning = 'not_ready' | 'unverified' | 'live_source';

export interface Capture {
  versions: CapturedVersion[];
  warnings: { evidence_id: string; reason: CaptureWarning }[];
}

/** What a capture left on the control (StoredControl.evidence_snapshot). */
export interface CaptureSnapshot {
  captured_at: string;
  versions: CapturedVersion[];
  acknowledged_warnings: string[];
}

/** Kinds whose content the service holds, so a capture pins it by digest. */
const FILE_KINDS = ['upload', 'file_link'];
/** Kinds stored but never fetched (seed: linked URLs are stored only), so nothing can verify them. */
const UNVERIFIABLE_KINDS = ['external_reference'];
/** Kinds whose content lives elsewhere and moves on (a register, a library working copy, a repository ref): read live, never pinned. */
const LIVE_KINDS = ['register_link', 'library_link', 'repository_link'];

/** Why an item cannot be pinned, or null when it can. */
function warningOf(item: Pick<EvidenceItem, 'kind' | 'status' | 'sha256'>): CaptureWarning | null {
  if (item.status !== 'ready') return 'not_ready';
  if (UNVERIFIABLE_KINDS.includes(item.kind) || (FILE_KINDS.includes(item.kind) && !item.sha256)) return 'unverified';
  if (LIVE_KINDS.includes(item.kind)) return 'live_source';
  return null;
}

export function captureEvidence(items: readonly EvidenceItem[]): Capture {
  const capture: Capture = { versions: [], warnings: [] };
  for (const item of items) {
    const reason = warningOf(item);
    if (reason) capture.warnings.push({ evidence_id: item.id, reason });
    else capture.versions.push({ evidence_id: item.id, version: item.version, sha256: item.sha256 });
  }
  return capture;
}

/**
 * How a document may cite an item: as pinned only when the control's capture pinned it, with the
 * version and digest the capture recorded (never the live item's); as the warning the assessor
 * acknowledged; or as not captured (the control has not reached assessed since the item was added).
 */
export type EvidenceCitation =
  | { kind: 'pinned'; captured_at: string; version: number; sha256: string | null }
  | { kind: 'acknowledged_warning'; captured_at: string; reason: CaptureWarning }
  | { kind: 'not_captured' };

export function citationOf(item: Pick<EvidenceItem, 'id' | 'kind' | 'status' | 'sha256'>, snapshot: CaptureSnapshot | null | undefined): EvidenceCitation {
  if (!snapshot) return { kind: 'not_captured' };
  const pinned = snapshot.versions.find((v) => v.evidence_id === item.id);
  if (pinned) return { kind: 'pinned', captured_at: snapshot.captured_at, version: pinned.version, sha256: pinned.sha256 };
  if (!snapshot.acknowledged_warnings.includes(item.id)) return { kind: 'not_captured' };
  // Kinds and digests never change and a file leaves pending only once: an acknowledged item that
  // would pin now was still being scanned when the capture ran.
  return { kind: 'acknowledged_warning', captured_at: snapshot.captured_at, reason: warningOf(item) ?? 'not_ready' };
}
