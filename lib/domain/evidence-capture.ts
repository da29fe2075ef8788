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

export interface Capture {
  versions: CapturedVersion[];
  warnings: { evidence_id: string; reason: 'not_ready' | 'unverified' | 'live_source' }[];
}

/** Kinds whose content the service holds, so a capture pins it by digest. */
const FILE_KINDS = ['upload', 'file_link'];
/** Kinds stored but never fetched (seed: linked URLs are stored only), so nothing can verify them. */
const UNVERIFIABLE_KINDS = ['external_reference'];
/** Kinds whose content lives elsewhere and moves on (a register, a library working copy, a repository ref): read live, never pinned. */
const LIVE_KINDS = ['register_link', 'library_link', 'repository_link'];

export function captureEvidence(items: readonly EvidenceItem[]): Capture {
  const capture: Capture = { versions: [], warnings: [] };
  for (const item of items) {
    if (item.status !== 'ready') capture.warnings.push({ evidence_id: item.id, reason: 'not_ready' });
    else if (UNVERIFIABLE_KINDS.includes(item.kind) || (FILE_KINDS.includes(item.kind) && !item.sha256))
      capture.warnings.push({ evidence_id: item.id, reason: 'unverified' });
    else if (LIVE_KINDS.includes(item.kind)) capture.warnings.push({ evidence_id: item.id, reason: 'live_source' });
    else capture.versions.push({ evidence_id: item.id, version: item.version, sha256: item.sha256 });
  }
  return capture;
}
