import type { RowError } from './rows.js';

/**
 * An artefact's import run (`use-as-ccm` reads the artefact as a Cloud Controls Matrix, `import`
 * as a structured document). Artefact detail shows the current run: its status, its progress,
 * the rows it could not read (the first ERROR_LIMIT, with error_count of them all) and how many
 * of the written assertions are exact.
 */
export const IMPORT_KINDS = ['ccm', 'structured'] as const;
export type ImportKind = (typeof IMPORT_KINDS)[number];
export type ImportStatus = 'running' | 'completed' | 'failed';

/** Row errors kept on the run: enough to fix a matrix by, small enough for one item. */
export const ERROR_LIMIT = 500;

export interface ImportRun {
  run_id: string;
  provider_id: string;
  release_id: string;
  artefact_id: string;
  /** The ISM release the artefact names: exactness is judged against it. */
  ism_version_id: string;
  kind: ImportKind;
  status: ImportStatus;
  started_at: string;
  started_by: string;
  token_id: string;
  finished_at: string | null;
  /** rows: the rows it read; written: how many of them are committed (where a redelivery resumes). */
  progress: { rows: number; written: number; exact: number } | null;
  errors: RowError[];
  error_count: number;
  error_code: string | null;
  error_detail: string | null;
}
