import { stillAuthorised, type Attribution } from '../auth/revalidate.js';
import { plannedControls, type Facts, type PlannedControl } from '../domain/applicability.js';
import type { MaturityLevel } from '../domain/oscal.js';
import { releaseEntries } from '../store/catalogue-entries.js';
import type { StoredProject } from '../domain/projects.js';
import type { ProviderEffect } from '../domain/provider-effects.js';
import { runAsFunction } from '../command-recording.js';
import { logger } from '../log.js';
import { putAll } from '../store/batch.js';
import { and, attributeEquals, leaseFree, type Condition } from '../store/conditions.js';
import { updateIf } from '../store/update.js';
import { newControlItem, projectApplicability, projectIndexItems } from '../store/controls.js';
import { asContext } from '../store/contexts.js';
import { keys } from '../store/keys.js';
import { asScope } from '../store/scopes.js';
import { asPopulationRun, type PopulationRun, runningPopulations } from '../store/population.js';
import { toProject } from '../store/projects.js';
import { getMany, getOne, keyString } from '../store/read.js';
import { commit } from '../store/transact.js';
import { newUlid } from '../domain/ids.js';
import { providerEffectsOf } from './provider-effects.js';
import { leaseUntil, MAX_REQUEUES, requeueFields, requeuesOf, stalled, stillStalled } from '../queues/recovery.js';
import { sendJob } from '../queues/sqs.js';
import { RetrySoon } from '../queues/retry-soon.js';

/** Controls written between progress reports and authorisation checkpoints. */
const CHUNK = 200;

/** The context facts recommendations read. */
export async function factsFor(project: StoredProject): Promise<Facts> {
  const wanted = [keys.organisationContext(project.organisation_id), keys.systemContext(project.system_id), keys.projectScope(project.id)];
  const found = await getMany(wanted);
  const context = (i: number) => asContext(found.get(keyString(wanted[i]!)))?.data ?? {};
  return { organisation: context(0), system: context(1), scope: asScope(found.get(keyString(wanted[2]!)))?.data ?? {} };
}

/** Everything the project should have from its release, as of its current setup and context. */
async function planFor(project: StoredProject): Promise<PlannedControl[]> {
  const [entries, facts] = await Promise.all([releaseEntries(project.ism_release_id), factsFor(project)]);
  const target = project.essential_eight_target === 'none' ? 'none' : (project.essential_eight_target as MaturityLevel);
  return plannedControls(entries, project.classification, target, facts);
}

/**
 * Writes the planned controls the project does not have yet, in batches, leaving every existing
 * control (and what people or recommendations did to it) as it is. Returns how many it wrote.
 * A caller that has read the provider effects already passes them, to spare a second read.
 */
export async function fillMissingControls(
  project: StoredProject,
  runId: string,
  now: Date,
  checkpoint: (written: number, planned: number, existing: number) => Promise<void>,
  knownEffects?: Promise<ReadonlyMap<string, ProviderEffect>>,
): Promise<number> {
  const [planned, existing, effects] = await Promise.all([planFor(project), projectApplicability(project.id), knownEffects ?? providerEffectsOf(project.id)]);
  const have = new Set(existing.map((c) => c.catalogue_id));
  const missing = planned.filter((p) => !have.has(p.entry.id));
  let written = 0;
  await checkpoint(0, planned.length, planned.length - missing.length);
  for (let i = 0; i < missing.length; i += CHUNK) {
    const chunk = missing.slice(i, i + CHUNK);
    await putAll(
      chunk.map((p) => newControlItem(project, p, runId, now, effects.get(p.entry.id))),
      8,
    );
    written += chunk.length;
    await checkpoint(written, planned.length, planned.length - missing.length);
  }
  return written;
}

const populationAttribution = (run: PopulationRun, project: StoredProject): Attribution => ({
  tokenId: run.token_id,
  userId: run.started_by,
  scope: { kind: 'organisation', id: project.organisation_id },
  permissions: ['manage-projects', 'view-projects'],
});

class RunMovedOn extends Error {
  override readonly name = 'RunMovedOn';
}

/** Changes the current run while it is still this run, still running, and `also` holds (the lease is free, or this delivery's). */
async function updateRun(projectId: string, runId: string, fields: Record<string, unknown>, also: Condition): Promise<void> {
  const condition = and(attributeEquals('run_id', runId), attributeEquals('status', 'running'), also);
  if (!(await updateIf(keys.projectPopulation(projectId), fields, condition))) throw new RunMovedOn();
}

/**
 * Running runs whose worker stopped renewing its lease (it writes one with every chunk of
 * controls) are queued again for a delivery that takes the lease over and writes the controls
 * still missing; the status stays `running` and its progress moves again. A run queued again
 * MAX_REQUEUES times and still stalled ends as failed (`population_abandoned`), so that a
 * recovery run can start and the setup ETag moves with the status.
 */
export async function sweepStalledRuns(now: Date): Promise<{ requeued: number; ended: number }> {
  const counts = { requeued: 0, ended: 0 };
  for (const { projectId, run } of await runningPopulations()) {
    if (!stalled(run, run.started_at, now)) continue;
    const runId = run.run_id;
    try {
      if (requeuesOf(run) >= MAX_REQUEUES) {
        const projectItem = await getOne(keys.project(projectId));
        if (!projectItem) continue;
        await finish(toProject(projectItem), runId, 'failed', now, 'population_abandoned', stillStalled(now));
        counts.ended++;
      } else {
        await updateRun(projectId, runId, requeueFields(run, now), stillStalled(now));
        await sendJob('populate', { project_id: projectId, run_id: runId });
        counts.requeued++;
      }
    } catch (error) {
      if (!(error instanceof RunMovedOn))
        logger.error('could not recover a stalled population run', { project_id: projectId, run_id: runId, error: error as Error });
    }
  }
  if (counts.requeued || counts.ended) logger.warn('stalled population runs recovered', counts);
  return counts;
}

/** Ends the run and moves the project with it in one transaction; the setup ETag changes (seed: a changed run invalidates the old ETag). */
async function finish(project: StoredProject, runId: string, outcome: 'completed' | 'failed', now: Date, errorCode?: string, also?: Condition): Promise<void> {
  const at = now.toISOString();
  const runCondition = and(attributeEquals('run_id', runId), attributeEquals('status', 'running'), ...(also ? [also] : []));
  const projectCondition = attributeEquals('population_run_id', runId);
  const controls = outcome === 'completed' ? await projectApplicability(project.id) : undefined;
  await commit([
    {
      kind: 'update',
      key: keys.projectPopulation(project.id),
      update: 'SET #s = :s, #f = :f, #e = :e REMOVE #l, #o, #g1, #g2',
      names: {
        '#s': 'status',
        '#f': 'finished_at',
        '#e': 'error_code',
        '#l': 'lease_until',
        '#o': 'lease_owner',
        '#g1': 'GSI1PK',
        '#g2': 'GSI1SK',
        ...runCondition.names,
      },
      values: { ':s': outcome, ':f': at, ':e': errorCode ?? null, ...runCondition.values },
      condition: runCondition,
      onConditionFailed: () => new RunMovedOn(),
    },
    {
      kind: 'update',
      key: keys.project(project.id),
      update: 'SET #ps = :ps, #ls = :ls, #u = :u ADD #v :one',
      names: { '#ps': 'population_status', '#ls': 'lifecycle_state', '#u': 'updated_at', '#v': 'version', ...projectCondition.names },
      values: { ':ps': outcome, ':ls': outcome === 'completed' ? 'active' : 'initialising', ':u': at, ':one': 1, ...projectCondition.values },
      condition: projectCondition,
      onConditionFailed: () => new RunMovedOn(),
    },
    // Edits need an active project, which this commit makes it; a recalculation pass that overlaps recounts afterwards.
    ...(controls
      ? Object.values(projectIndexItems(project.id, controls, at))
          .flat()
          .map((item) => ({ kind: 'put' as const, item }))
      : []),
  ]);
}

/**
 * The population job of one run. Idempotent under redelivery: a run that is no longer current or
 * no longer running is left alone, a lease keeps two deliveries from working at once, and a
 * delivery after a crash takes the lease over and fills in what the crashed one did not write.
 */
export function populate(message: { project_id?: string; run_id?: string }, now: Date): Promise<void> {
  // The job's entry point, for its worker and for tests that run the job directly.
  return runAsFunction('workers/populate', () => populateOnce(message, now));
}

async function populateOnce(message: { project_id?: string; run_id?: string }, now: Date): Promise<void> {
  const projectId = message.project_id ?? '';
  const runId = message.run_id ?? '';
  const found = await getMany([keys.project(projectId), keys.projectPopulation(projectId)]);
  const projectItem = found.get(keyString(keys.project(projectId)));
  const run = asPopulationRun(found.get(keyString(keys.projectPopulation(projectId))));
  // The job is dispatched from its committed run (lib/jobs/dispatch.ts): another one here has replaced it.
  if (!projectItem || run?.run_id !== runId) return;
  if (run.status !== 'running') return;
  const project = toProject(projectItem);
  // Each delivery owns the lease under its own name: a worker whose lease was taken over stops at its next checkpoint.
  const owner = newUlid();
  try {
    await updateRun(
      projectId,
      runId,
      { lease_until: leaseUntil(now), lease_owner: owner, worker_started_at: now.toISOString() },
      leaseFree('lease_until', now.toISOString()),
    );
  } catch (error) {
    if (error instanceof RunMovedOn) throw new RetrySoon(`population run ${runId} is leased by another delivery`, 30);
    throw error;
  }
  const attribution = populationAttribution(run, project);
  const mine = attributeEquals('lease_owner', owner);
  // A delivery that takes over counts what the run wrote before it as created, not as existing.
  const earlier = run.progress;
  try {
    if (!(await stillAuthorised(attribution, now))) return await finish(project, runId, 'failed', now, 'authorisation_lost', mine);
    await fillMissingControls(project, runId, now, async (written, planned, existing) => {
      if (written > 0 && !(await stillAuthorised(attribution, new Date()))) throw new AuthorisationLost();
      const before = earlier ? Math.min(earlier.existing, existing) : existing;
      const progress = { planned, existing: before, created: existing - before + written };
      await updateRun(projectId, runId, { progress, lease_until: leaseUntil(new Date()) }, mine);
    });
    await finish(project, runId, 'completed', new Date(), undefined, mine);
    logger.info('population completed', { project_id: projectId, run_id: runId });
  } catch (error) {
    if (error instanceof RunMovedOn) return;
    const code = error instanceof AuthorisationLost ? 'authorisation_lost' : 'population_failed';
    logger.error('population failed', { project_id: projectId, run_id: runId, code, error: error as Error });
    await finish(project, runId, 'failed', new Date(), code, mine).catch((e: unknown) => {
      if (!(e instanceof RunMovedOn)) throw e;
    });
  }
}

class AuthorisationLost extends Error {
  override readonly name = 'AuthorisationLost';
}
