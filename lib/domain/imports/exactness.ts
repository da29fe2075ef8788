import type { CatalogueEntry } from '../oscal.js';
import type { ImportedRow } from './rows.js';

/**
 * Whether an imported assertion can be confirmed in bulk (confirm-exact) or needs a person to
 * review it, judged against the ISM release the artefact names. A row is exact when:
 * - its control id is a control of that release, and
 * - it names no ISM version, or names that release's version, and
 * - it quotes no control text, or quotes the release's statement of the control once both are
 *   normalised (Unicode NFC, every run of whitespace one space, trimmed): a matrix that lists
 *   identifiers only is judged on the identifier, which is what it asserts about.
 * Anything else needs review, with the first reason that applies.
 */
export const REVIEW_REASONS = ['unknown_control', 'other_ism_release', 'text_differs'] as const;
export type ReviewReason = (typeof REVIEW_REASONS)[number];

export type Exactness = { exact: true } | { exact: false; reason: ReviewReason; detail: string };

export interface ReleaseText {
  version: string;
  /** The statement of each control of the release, by catalogue id. */
  statements: ReadonlyMap<string, string>;
}

/** Another installed ISM release: only which controls it has. */
export interface OtherRelease {
  version: string;
  controls: ReadonlySet<string>;
}

export const releaseText = (version: string, entries: readonly CatalogueEntry[]): ReleaseText => ({
  version,
  statements: new Map(entries.filter((e) => e.kind === 'control').map((e) => [e.id, e.statement])),
});

export const normalisedText = (text: string) => text.normalize('NFC').replace(/\s+/g, ' ').trim();

const normalisedVersion = (version: string) => version.trim().replace(/^(?:ism\s*)?v?/i, '');

export function exactness(
  row: Pick<ImportedRow, 'control_id' | 'control_text' | 'ism_version'>,
  release: ReleaseText,
  others: readonly OtherRelease[] = [],
): Exactness {
  const statement = release.statements.get(row.control_id);
  if (statement === undefined) {
    const elsewhere = others.filter((o) => o.version !== release.version && o.controls.has(row.control_id)).map((o) => o.version);
    return elsewhere.length
      ? { exact: false, reason: 'other_ism_release', detail: `${row.control_id} is not in ISM ${release.version}; it is in ISM ${elsewhere.join(', ')}` }
      : { exact: false, reason: 'unknown_control', detail: `${row.control_id} is not a control of ISM ${release.version}` };
  }
  if (row.ism_version !== null && normalisedVersion(row.ism_version) !== normalisedVersion(release.version)) {
    return { exact: false, reason: 'other_ism_release', detail: `written against ISM ${row.ism_version}, not ${release.version}` };
  }
  if (row.control_text !== null && normalisedText(row.control_text) !== normalisedText(statement)) {
    return { exact: false, reason: 'text_differs', detail: `the control text differs from ISM ${release.version}'s statement of ${row.control_id}` };
  }
  return { exact: true };
}
