import { stillAuthorised, type Attribution } from '../auth/revalidate.js';
import { recalculated, recommendationFor, type Recommendation } from '../domain/applicability.js';
import type { StoredProject } from '../domain/projects.js';
import { type ProviderEffect, sameGuidance, withProviderEffect } from '../domain/provider-effects.js';
import { runAsFunction } from '../command-recording.js';
import { logger } from '../log.js';
import { and, attributeEquals, itemPresent, versionIs } from '../store/conditions.js';
import { deleteIf, updateIf } from '../store/update.js';
import { type ControlApplicability, toApplicability } from '../store/control-entity.js';
import { attentionKeys, projectApplicability, recountProject } from '../store/controls.js';
import { keys, type Key } from '../store/keys.js';
import { projectsOfSystems, toProject } from '../store/projects.js';
import { systemIdsOf } from '../store/systems.js';
import { getOne } from '../store/read.js';
import {
  markerKey,
  pendingRecalculations,
  type RecalculationMarker,
  type RecalculationSubject,
  recalculationMarkerOf,
  subjectOf,
} from '../store/recalculations.js';
import { factsFor, fillMissingControls } from './population.js';
import { providerEffectsOf } from './provider-effects.js';
import { leaseUntil, requeueFields, stalled, stillStalled } from '../queues/recovery.js';
import { sendJob } from '../queues/sqs.js';
import { RetrySoon } from '../queues/retry-soon.js';

const CONCURRENCY = 8;

/** Field by field: DynamoDB returns map members in no particular order. */
function sameRecommendation(a: Recommendation | null, b: Recommendation | null): boolean {
  if (a === null || b === null) return a === b;
  const same = (x: readonly string[], y: readonly string[]) => x.length === y.length && [...x].sort().every((v, i) => v === [...y].sort()[i]);
  return a.value === b.value && same(a.rules, b.rules) && same(a.reasons, b.reasons);
}

/**
 * Brings one control's recommendation, system-set applicability and provider-owned fields (its
 * guidance, and `ec` where nobody chose a status) up to date. Conditional on the version read, so
 * a person's concurrent edit is never overwritten: on a lost race the control is read again and
 * recalculated from what the person left. The summary and the filter digest are recounted once
 * the project is done, rather than moved per control: one write per changed control, where moving
 * a digest shard beside each cost a second write of up to 2 KB (a selection that gives 958
 * controls `ec` wrote 3,500 units instead of 1,900), and the list filters and the counts then
 * change together at the recount instead of apart.
 */
async function updateControl(
  projectId: string,
  control: ControlApplicability,
  recommendationOf: (c: ControlApplicability) => Recommendation | null,
  effects: ReadonlyMap<string, ProviderEffect>,
  now: Date,
): Promise<void> {
  let current: ControlApplicability | undefined = control;
  for (let attempt = 0; current && attempt < 5; attempt++) {
    const recommendation = recommendationOf(current);
    const next = recalculated({ applicability: current.applicability, origin: current.applicability_origin }, recommendation);
    const provider = withProviderEffect(current, effects.get(current.catalogue_id));
    const recommended = sameRecommendation(current.recommendation, recommendation);
    if (
      recommended &&
      next.applicability === current.applicability &&
      next.origin === current.applicability_origin &&
      provider.implementation_status === current.implementation_status &&
      provider.implementation_status_origin === (current.implementation_status_origin ?? null) &&
      sameGuidance(provider.provider_guidance, current.provider_guidance)
    )
      return;
    const after = { ...current, applicability: next.applicability, applicability_origin: next.origin, recommendation, ...provider };
    const attention = attentionKeys(projectId, after);
    const written = await updateIf(
      keys.control(projectId, current.id),
      {
        // A write for the provider fields alone leaves the time of the recommendation as it was.
        ...(recommended ? {} : { recommendation, recommendation_at: now.toISOString() }),
        applicability: next.applicability,
        applicability_origin: next.origin,
        ...provider,
        updated_at: now.toISOString(),
        version: current.version + 1,
        ...attention,
      },
      versionIs(current.version),
      attention.GSI1PK ? [] : ['GSI1PK', 'GSI1SK'],
    );
    if (written) return;
    const reread = await getOne(keys.control(projectId, current.id));
    current = reread && toApplicability(reread);
  }
}

/** Recalculates one project's applicability and provider effects from its current context and scope; returns false when it must wait. */
async function recalculateProject(project: StoredProject, now: Date): Promise<boolean> {
  if (project.archived || project.lifecycle_state === 'setup') return true;
  // Population reads the facts once; recalculating under a running population would race it.
  // (An abandoned run holds it up only until the sweep ends that run.)
  if (project.population_status === 'running') return false;
  const reading = providerEffectsOf(project.id);
  if (project.lifecycle_state === 'active') await fillMissingControls(project, `recalculation-${now.toISOString()}`, now, async () => {}, reading);
  const [facts, controls, effects] = await Promise.all([factsFor(project), projectApplicability(project.id, { provider: true }), reading]);
  const recommendationOf = (c: ControlApplicability) => recommendationFor(c, facts);
  let next = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < controls.length) await updateControl(project.id, controls[next++]!, recommendationOf, effects, now);
    }),
  );
  // After every pass, so that a recount a failed delivery did not finish is made by the next one.
  await recountProject(project.id, now);
  return true;
}

const markerAttribution = (marker: RecalculationMarker): Attribution => ({
  tokenId: marker.token_id,
  userId: marker.requested_by,
  ...marker.authority,
});

/** Clears the marker unless a newer request folded into it meanwhile (that request's job follows). */
async function clearMarker(key: Key, generation: number): Promise<void> {
  const condition = attributeEquals('generation', generation);
  await deleteIf(key, condition);
}

/** The projects a subject covers. */
async function projectsCovered(subject: RecalculationSubject): Promise<StoredProject[]> {
  if ('project_id' in subject) {
    const item = await getOne(keys.project(subject.project_id));
    return item ? [toProject(item)] : [];
  }
  if ('system_id' in subject) return projectsOfSystems([subject.system_id]);
  return projectsOfSystems(await systemIdsOf(subject.organisation_id));
}

/** What a job message asks for; anything else is not a recalculation this service queued. */
function subjectOfMessage(message: Record<string, string | undefined>): RecalculationSubject | undefined {
  if (message.organisation_id) return { organisation_id: message.organisation_id };
  if (message.system_id) return { system_id: message.system_id };
  if (message.project_id) return { project_id: message.project_id };
  return undefined;
}

/**
 * The recalculation job: an organisation's or a system's marker (context change) covers their
 * projects, a project's marker (scope or target change) that project. Revalidates who asked before
 * any write; when their authority is gone the marker stays, marked stopped, and health keeps
 * reporting stale recommendations.
 */
export function recalculate(message: Record<string, string | undefined>, now: Date): Promise<void> {
  // The job's entry point, for its worker and for tests that run the job directly.
  return runAsFunction('workers/recalculate', () => recalculateOnce(message, now));
}

async function recalculateOnce(message: Record<string, string | undefined>, now: Date): Promise<void> {
  const subject = subjectOfMessage(message);
  if (!subject) return;
  const key = markerKey(subject);
  const marker = await recalculationMarkerOf(subject);
  if (!marker || marker.stopped) return;
  if (!(await stillAuthorised(markerAttribution(marker), now))) {
    // A newer request folded in meanwhile is someone else's, and stays live.
    await updateIf(key, { stopped: 'authorisation_lost' }, attributeEquals('generation', marker.generation));
    logger.warn('recalculation stopped: the requester lost authority', { marker: key.PK });
    return;
  }
  const projects = await projectsCovered(subject);
  let waiting = false;
  for (const project of projects) {
    // Each project renews the marker's lease: the sweep leaves a marker alone while its job is alive.
    await updateIf(key, { lease_until: leaseUntil(new Date()) }, itemPresent());
    if (!(await recalculateProject(project, now))) waiting = true;
  }
  if (waiting) throw new RetrySoon('a project is still being populated', 30);
  await clearMarker(key, marker.generation);
  logger.info('applicability recalculated', { marker: key.PK, projects: projects.length });
}

/**
 * Queues a job for every pending marker whose job seems lost: its send failed after the commit,
 * its worker died (its lease, renewed at every project, ran out) or the job was dead-lettered.
 * A marker is queued again at most once a lease's length; markers stopped for lost authority wait
 * for the next change. Runs on a schedule on AWS and on a timer locally.
 */
export async function sweepRecalculations(now: Date): Promise<number> {
  const markers = await pendingRecalculations();
  const due = markers.filter((m) => !m.stopped && stalled(m, m.last_requested_at ?? m.requested_at, now));
  const subjects: RecalculationSubject[] = [];
  for (const marker of due) {
    const subject = subjectOf(marker);
    if (subject && (await updateIf({ PK: marker.PK, SK: marker.SK }, requeueFields(marker, now), and(itemPresent(), stillStalled(now)))))
      subjects.push(subject);
  }
  const sent = await Promise.allSettled(subjects.map((subject) => sendJob('recalculate', subject)));
  const failed = sent.filter((r) => r.status === 'rejected').length;
  if (failed) logger.warn('recalculations not re-queued; a later sweep tries again', { count: failed });
  if (subjects.length) logger.info('recalculations re-queued', { count: subjects.length - failed });
  return subjects.length - failed;
}
