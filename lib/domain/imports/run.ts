import * as z from 'zod';
import { once } from '../validation.js';
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
  /** Moved by every write that changes what artefact detail shows of the run: the artefact ETag names it. */
  revision: number;
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

/** A run as it starts: running, nothing read yet, attributed to the credential that started it. */
export function newImportRun(
  r: Pick<ImportRun, 'run_id' | 'provider_id' | 'release_id' | 'artefact_id' | 'ism_version_id' | 'kind' | 'started_by' | 'token_id'> & { now: Date },
): ImportRun {
  const { now, ...identity } = r;
  return {
    ...identity,
    status: 'running',
    revision: 1,
    started_at: now.toISOString(),
    finished_at: null,
    progress: null,
    errors: [],
    error_count: 0,
    error_code: null,
    error_detail: null,
  };
}

/** What artefact detail shows of the artefact's current import run. */
export const ImportRunView = once(() =>
  z
    .object({
      run_id: z.string(),
      kind: z.enum(IMPORT_KINDS),
      status: z.enum(['running', 'completed', 'failed']),
      started_at: z.string(),
      finished_at: z.string().nullable(),
      progress: z
        .object({ rows: z.number().int(), written: z.number().int(), exact: z.number().int() })
        .nullable()
        .meta({ description: 'Rows read, rows written so far and how many of them are exact; null until the file is parsed.' }),
      errors: z.array(z.object({ row: z.number().int(), reason: z.string() })).meta({ description: `The first ${ERROR_LIMIT} rows that could not be read.` }),
      error_count: z.number().int(),
      error_code: z.string().nullable().meta({
        description: 'Why a failed run failed (a refused file, authorisation_lost, release_not_draft, import_abandoned when no worker finished it, …).',
      }),
      error_detail: z.string().nullable(),
    })
    .meta({ id: 'ImportRun' }),
);
export type ImportRunView = z.infer<ReturnType<typeof ImportRunView>>;

export const importRunView = (r: ImportRun): ImportRunView => ({
  run_id: r.run_id,
  kind: r.kind,
  status: r.status,
  started_at: r.started_at,
  finished_at: r.finished_at,
  progress: r.progress,
  errors: r.errors,
  error_count: r.error_count,
  error_code: r.error_code,
  error_detail: r.error_detail,
});
