import * as z from 'zod';
import { IMPORT_KINDS, type ImportRun } from '../domain/imports/run.js';
import { and, attributeEquals, itemAbsent, leaseFree, memberEquals, type Condition } from './conditions.js';
import { parseEach, parseFound, parseStored, storedSchema, type Swept, sweptFields } from './entity.js';
import { gsi1, keys } from './keys.js';
import { getOne, type Item, queryAll } from './read.js';
import type { WriteItem } from './transact.js';
import { updateIf } from './update.js';
import { once } from '../domain/validation.js';

/**
 * An artefact's current import run, `PK=PROVIDER#<provider>`, `SK=IMPORT#<artefact>`: one per
 * artefact, replaced by the next run once it has ended.
 */
export class RunMovedOn extends Error {
  override readonly name = 'RunMovedOn';
}

/**
 * An import run as stored under keys.artefactImport, with the lease and re-queue bookkeeping
 * (lease_until, requeued_at, requeues) the sweep judges. Runs written before runs kept a revision
 * gained one in the revise-import-runs migration.
 */
export const importRunSchema = once(() =>
  storedSchema<ImportRun>()(
    z.looseObject({
      run_id: z.string(),
      provider_id: z.string(),
      release_id: z.string(),
      artefact_id: z.string(),
      ism_version_id: z.string(),
      kind: z.enum(IMPORT_KINDS),
      status: z.enum(['running', 'completed', 'failed']),
      revision: z.number(),
      started_at: z.string(),
      started_by: z.string(),
      token_id: z.string(),
      finished_at: z.string().nullable(),
      progress: z.looseObject({ rows: z.number(), written: z.number(), exact: z.number() }).nullable(),
      errors: z.array(z.looseObject({ row: z.number(), reason: z.string() })),
      error_count: z.number(),
      error_code: z.string().nullable(),
      error_detail: z.string().nullable(),
      ...sweptFields(),
    }),
  ),
);

export const toImportRun = (item: Item | undefined): ImportRun | undefined => parseFound(importRunSchema(), item);

export async function importRun(providerId: string, artefactId: string): Promise<ImportRun | undefined> {
  return toImportRun(await getOne(keys.artefactImport(providerId, artefactId)));
}

/** A running run's key in the index of running runs, by start time (the sweep reads the runs started before its cutoff). */
export const runningIndexKeys = (run: Pick<ImportRun, 'started_at' | 'provider_id' | 'artefact_id'>) => ({
  GSI1PK: gsi1.runningImports,
  GSI1SK: `${run.started_at}#${run.provider_id}#${run.artefact_id}`,
});

/** The put that starts a run, conditional on the run it replaces being as read (the caller refuses to replace a running one). */
export function startImportWrites(run: ImportRun, replaced: Pick<ImportRun, 'run_id' | 'status' | 'revision'> | undefined): WriteItem {
  const condition = replaced
    ? and(attributeEquals('run_id', replaced.run_id), attributeEquals('status', replaced.status), attributeEquals('revision', replaced.revision))
    : itemAbsent();
  return {
    kind: 'put',
    item: { ...keys.artefactImport(run.provider_id, run.artefact_id), entity: 'import-run', ...run, ...runningIndexKeys(run) },
    condition,
    onConditionFailed: () => new RunMovedOn(),
  };
}

/** The run's identity and the revision its writer last saw. */
type RunRef = Pick<ImportRun, 'provider_id' | 'artefact_id' | 'run_id' | 'revision'>;

const running = (runId: string) => and(attributeEquals('run_id', runId), attributeEquals('status', 'running'));
/** Still this run, running, at the revision the writer holds: any write in between (a sweep, another delivery) wins. */
const current = (run: RunRef) => and(running(run.run_id), attributeEquals('revision', run.revision));
const moved = (run: RunRef) => ({ revision: run.revision + 1 });

/** Takes the run's lease while it is still this run, running, and the lease is free; the lease is not shown, so the revision stays. */
export async function takeImportLease(run: Pick<ImportRun, 'provider_id' | 'artefact_id' | 'run_id'>, until: Date, now: Date): Promise<void> {
  const condition = and(running(run.run_id), leaseFree('lease_until', now.toISOString()));
  if (!(await updateIf(keys.artefactImport(run.provider_id, run.artefact_id), { lease_until: until.toISOString() }, condition))) throw new RunMovedOn();
}

/** Records that the sweep queued the run again, while it is still this run, running, and `also` holds; not shown, so the revision stays. */
export async function markImportRequeued(
  run: Pick<ImportRun, 'provider_id' | 'artefact_id' | 'run_id'>,
  fields: Record<string, unknown>,
  also: Condition,
): Promise<void> {
  if (!(await updateIf(keys.artefactImport(run.provider_id, run.artefact_id), fields, and(running(run.run_id), also)))) throw new RunMovedOn();
}

/** Sets fields the artefact detail shows, moving the revision (the caller's run is then at revision + 1). */
export async function updateImportRun(run: RunRef, fields: Record<string, unknown>): Promise<void> {
  if (!(await updateIf(keys.artefactImport(run.provider_id, run.artefact_id), { ...fields, ...moved(run) }, current(run)))) throw new RunMovedOn();
}

/**
 * Moves the run's committed rows from `from` to `to` and its revision, in the transaction that
 * writes those rows, and renews the lease to `leaseUntil`: each batch is the worker's heartbeat.
 */
export function progressWrite(run: RunRef, from: number, progress: NonNullable<ImportRun['progress']>, leaseUntil: string): WriteItem {
  const condition: Condition = and(current(run), memberEquals(['progress', 'written'], from));
  return {
    kind: 'update',
    key: keys.artefactImport(run.provider_id, run.artefact_id),
    update: 'SET #pr = :pr, #rev = :rev, #l = :l',
    names: { '#pr': 'progress', '#rev': 'revision', '#l': 'lease_until', ...condition.names },
    values: { ':pr': progress, ':rev': run.revision + 1, ':l': leaseUntil, ...condition.values },
    condition,
    onConditionFailed: () => new RunMovedOn(),
  };
}

/** Ends the run, moving its revision (and, given `also`, only while that holds too); it leaves the index of running runs. */
export async function finishImportRun(
  run: RunRef,
  outcome: { status: 'completed' | 'failed'; at: Date; code?: string; detail?: string },
  also?: Condition,
): Promise<void> {
  const fields = {
    status: outcome.status,
    finished_at: outcome.at.toISOString(),
    error_code: outcome.code ?? null,
    error_detail: outcome.detail ?? null,
    ...moved(run),
  };
  const condition = and(current(run), ...(also ? [also] : []));
  if (
    !(await updateIf(keys.artefactImport(run.provider_id, run.artefact_id), fields, condition, ['lease_until', 'requeued_at', 'requeues', 'GSI1PK', 'GSI1SK']))
  )
    throw new RunMovedOn();
}

/**
 * A check that the artefact's run is as an artefact ETag named it (absent, or this run at this
 * revision), for a write that ETag guards.
 */
export function runAsRead(
  providerId: string,
  artefactId: string,
  run: Pick<ImportRun, 'run_id' | 'revision'> | undefined,
  onConditionFailed: () => Error,
): WriteItem {
  return {
    kind: 'check',
    key: keys.artefactImport(providerId, artefactId),
    condition: run ? and(attributeEquals('run_id', run.run_id), attributeEquals('revision', run.revision)) : itemAbsent(),
    onConditionFailed,
  };
}

/** Running runs that started before `beforeIso` (every run started later is too young to have stalled), oldest first, with what the sweep judges. */
export async function runningImportsStartedBefore(beforeIso: string): Promise<(ImportRun & Swept)[]> {
  const items = await queryAll({
    IndexName: 'GSI1',
    KeyConditionExpression: 'GSI1PK = :pk AND GSI1SK < :before',
    ExpressionAttributeValues: { ':pk': gsi1.runningImports, ':before': beforeIso },
  });
  return parseEach('import run', items, (i) => parseStored(importRunSchema(), i));
}
