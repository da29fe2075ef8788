import type { ImportRun } from '../domain/imports/run.js';
import { and, attributeEquals, itemAbsent, leaseFree, memberEquals, type Condition } from './conditions.js';
import { gsi1, keys, withoutKeys } from './keys.js';
import { getOne, type Item, queryAll } from './read.js';
import type { WriteItem } from './transact.js';
import { updateIf } from './update.js';

/**
 * An artefact's current import run, `PK=PROVIDER#<provider>`, `SK=IMPORT#<artefact>`: one per
 * artefact, replaced by the next run once it has ended.
 */
export class RunMovedOn extends Error {
  override readonly name = 'RunMovedOn';
}

export const toImportRun = (item: Item | undefined): ImportRun | undefined => (item ? (withoutKeys(item) as unknown as ImportRun) : undefined);

export async function importRun(providerId: string, artefactId: string): Promise<ImportRun | undefined> {
  return toImportRun(await getOne(keys.artefactImport(providerId, artefactId)));
}

/** A running run's key in the index of running runs, by start time (the sweep reads the runs started before its cutoff). */
export const runningIndexKeys = (run: Pick<ImportRun, 'started_at' | 'provider_id' | 'artefact_id'>) => ({
  GSI1PK: gsi1.runningImports,
  GSI1SK: `${run.started_at}#${run.provider_id}#${run.artefact_id}`,
});

/** The put that starts a run, conditional on the run it replaces being as read (the caller refuses to replace a running one). */
export function startImportWrites(run: ImportRun, replaced: Pick<ImportRun, 'run_id' | 'status'> | undefined): WriteItem {
  const condition = replaced ? and(attributeEquals('run_id', replaced.run_id), attributeEquals('status', replaced.status)) : itemAbsent();
  return {
    kind: 'put',
    item: { ...keys.artefactImport(run.provider_id, run.artefact_id), entity: 'import-run', ...run, ...runningIndexKeys(run) },
    condition,
    onConditionFailed: () => new RunMovedOn(),
  };
}

const current = (runId: string) => and(attributeEquals('run_id', runId), attributeEquals('status', 'running'));

/** Sets fields of the run while it is still this run and running (and, to take the lease, while the lease is free). */
export async function updateImportRun(
  run: Pick<ImportRun, 'provider_id' | 'artefact_id' | 'run_id'>,
  fields: Record<string, unknown>,
  takeLeaseAt?: Date,
): Promise<void> {
  const condition = and(current(run.run_id), ...(takeLeaseAt ? [leaseFree('lease_until', takeLeaseAt.toISOString())] : []));
  if (!(await updateIf(keys.artefactImport(run.provider_id, run.artefact_id), fields, condition))) throw new RunMovedOn();
}

/** Moves the run's committed rows from `from` to `to`, in the transaction that writes those rows. */
export function progressWrite(
  run: Pick<ImportRun, 'provider_id' | 'artefact_id' | 'run_id'>,
  from: number,
  progress: NonNullable<ImportRun['progress']>,
): WriteItem {
  const condition: Condition = and(current(run.run_id), memberEquals(['progress', 'written'], from));
  return {
    kind: 'update',
    key: keys.artefactImport(run.provider_id, run.artefact_id),
    update: 'SET #pr = :pr',
    names: { '#pr': 'progress', ...condition.names },
    values: { ':pr': progress, ...condition.values },
    condition,
    onConditionFailed: () => new RunMovedOn(),
  };
}

/** Ends the run (and, given `also`, only while that holds too); it leaves the index of running runs. */
export async function finishImportRun(
  run: Pick<ImportRun, 'provider_id' | 'artefact_id' | 'run_id'>,
  outcome: { status: 'completed' | 'failed'; at: Date; code?: string; detail?: string },
  also?: Condition,
): Promise<void> {
  const fields = { status: outcome.status, finished_at: outcome.at.toISOString(), error_code: outcome.code ?? null, error_detail: outcome.detail ?? null };
  const condition = and(current(run.run_id), ...(also ? [also] : []));
  if (!(await updateIf(keys.artefactImport(run.provider_id, run.artefact_id), fields, condition, ['lease_until', 'GSI1PK', 'GSI1SK']))) throw new RunMovedOn();
}

/** Running runs that started before `beforeIso` (every run started later is too young to be abandoned), oldest first. */
export async function runningImportsStartedBefore(beforeIso: string): Promise<(ImportRun & { lease_until?: string })[]> {
  const items = await queryAll({
    IndexName: 'GSI1',
    KeyConditionExpression: 'GSI1PK = :pk AND GSI1SK < :before',
    ExpressionAttributeValues: { ':pk': gsi1.runningImports, ':before': beforeIso },
  });
  return items.map((i) => ({ ...toImportRun(i)!, ...(typeof i.lease_until === 'string' ? { lease_until: i.lease_until } : {}) }));
}
