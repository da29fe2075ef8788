import { newUlid } from '../domain/ids.js';
import { stillAuthorised, type Attribution } from '../auth/revalidate.js';
import { runAsFunction } from '../command-recording.js';
import { settings } from '../config.js';
import { CATALOGUE, outputFileName, requirementsMet, type GenerationError, type StoredDocument, type StoredOutput } from '../domain/documents.js';
import type { StoredProject } from '../domain/projects.js';
import { AREAS, deleteObject } from '../files/storage.js';
import { streamToObject } from './stream-upload.js';
import { logger } from '../log.js';
import { rendererFor } from '../render/index.js';
import { asProjectSummary, countsBy, type StoredSummary, SUMMARY_PREFIX } from '../store/controls.js';
import { asGenerationLease, GenerationMovedOn, generationUpdate, leaseIsMine, releaseLease, toDocument } from '../store/documents.js';
import { keys } from '../store/keys.js';
import { toProject } from '../store/projects.js';
import { getMany, keyString } from '../store/read.js';
import { commit, type WriteItem } from '../store/transact.js';
import { gatherModel } from './document-data.js';
import { LEASE_SECONDS, leaseUntil } from '../queues/recovery.js';

class AuthorisationLost extends Error {
  override readonly name = 'AuthorisationLost';
}

/** The message names a generation; everything else is read from its records (DESIGN.md section 6). */
export interface GenerationMessage {
  project_id?: string;
  document_id?: string;
  generation_id?: string;
}

/**
 * The generation job of one output row. Idempotent under redelivery: a generation that is no
 * longer the row's current one, already finished, or no longer holding the project lease is left
 * alone; a redelivery after a crash renders again from the start while the lease is still its own.
 */
export function generateDocument(message: GenerationMessage, now: Date): Promise<void> {
  return runAsFunction('workers/generate', () => generateOnce(message, now));
}

async function generateOnce(message: GenerationMessage, now: Date): Promise<void> {
  const projectId = message.project_id ?? '';
  const documentId = message.document_id ?? '';
  const generationId = message.generation_id ?? '';
  const wanted = [keys.project(projectId), keys.document(projectId, documentId), keys.generationLease(projectId), keys.projectSummary(projectId)];
  const found = await getMany(wanted);
  const [projectItem, documentItem, leaseItem, summary] = wanted.map((k) => found.get(keyString(k)));
  const lease = asGenerationLease(leaseItem);
  const document = documentItem ? toDocument(documentItem) : undefined;
  // The job is dispatched from its committed generation (lib/jobs/dispatch.ts): another one here has replaced it.
  if (!projectItem || document?.generation.id !== generationId) return;
  const status = document.generation.status;
  if (status !== 'queued' && status !== 'running') return;
  const project = toProject(projectItem);
  if (lease?.generation_id !== generationId || lease.lease_until <= now.toISOString()) {
    // Its lease expired before a worker got to it (reads already show it as abandoned): record that.
    await fail(project.id, document, 'generation_abandoned', now, false);
    return;
  }
  try {
    await startRunning(project.id, document, now);
  } catch (error) {
    if (error instanceof GenerationMovedOn) return;
    throw error;
  }
  await run(project, document, asProjectSummary(summary), now);
}

/**
 * Marks the generation running and renews the lease for this delivery, both only while they are
 * still its own. From here the lease is a worker's (LEASE_SECONDS, renewed before the render), no
 * longer the request's wait for a worker: a worker that dies is shown as abandoned within minutes.
 */
async function startRunning(projectId: string, d: StoredDocument, now: Date): Promise<void> {
  await commit([
    generationUpdate(projectId, d.id, d.generation.id, { status: 'running', started_at: now.toISOString() }, ['queued', 'running']),
    renewLease(projectId, d.generation.id, now),
  ]);
}

function renewLease(projectId: string, generationId: string, now: Date): WriteItem {
  return {
    kind: 'update',
    key: keys.generationLease(projectId),
    update: 'SET #u = :u',
    names: { '#u': 'lease_until' },
    // Never longer than a request's lease: an installation that shortens it shortens both.
    values: { ':u': leaseUntil(now, Math.min(LEASE_SECONDS, settings().GENERATION_LEASE_SECONDS)) },
    condition: leaseIsMine(generationId),
    onConditionFailed: () => new GenerationMovedOn(),
  };
}

async function run(project: StoredProject, document: StoredDocument, summary: StoredSummary | undefined, now: Date): Promise<void> {
  const g = document.generation;
  const attribution: Attribution = {
    tokenId: g.token_id,
    userId: g.requested_by,
    scope: { kind: 'project', id: project.id },
    permissions: ['generate-docsuite', 'view-docsuite'],
  };
  let written: string | undefined;
  try {
    if (!(await stillAuthorised(attribution, now))) return await fail(project.id, document, 'authorisation_lost', new Date(), true);
    const met = requirementsMet(document.document_key, {
      populationStatus: project.population_status,
      essentialEightTarget: project.essential_eight_target,
      assessedControls: countsBy(summary, SUMMARY_PREFIX.workflowState).assessed ?? 0,
    });
    if (project.archived || !met) return await fail(project.id, document, 'dependencies_incomplete', new Date(), true);
    const model = await gatherModel(project, document, now);
    await commit([renewLease(project.id, g.id, new Date())]);
    const renderer = rendererFor(document.document_key);
    written = `${AREAS.documents}${newUlid()}`;
    const file = await streamToObject(written, renderer.mediaType, (out) => renderer.render(model, out));
    // Boundary rule 5: the requester is checked again before the durable write.
    if (!(await stillAuthorised(attribution, new Date()))) throw new AuthorisationLost();
    const finished = new Date().toISOString();
    const output: StoredOutput = {
      s3_key: written,
      generation_id: g.id,
      output: g.options.output,
      media_type: CATALOGUE[document.document_key].media_type,
      file_name: outputFileName(model.system.short_code || 'project', document.document_key, g.options.output, model.document.generated_at),
      size: file.size,
      sha256: file.sha256,
      generated_at: model.document.generated_at,
      generated_by: g.requested_by,
      generated_by_name: g.requested_by_name,
      approved_by: g.approved_by,
      approved_by_name: g.approved_by_name,
      approved_at: g.approved_at,
    };
    await commit([
      generationUpdate(project.id, document.id, g.id, { status: 'completed', finished_at: finished }, ['running'], output),
      releaseLease(project.id, g.id),
    ]);
    const superseded = document.output?.s3_key;
    if (superseded) await deleteObject(superseded).catch((e: unknown) => logger.warn('could not delete a superseded output', { error: e as Error }));
    logger.info('document generated', { project_id: project.id, document_id: document.id, generation_id: g.id, size: file.size });
  } catch (error) {
    if (written) await deleteObject(written).catch(() => undefined);
    if (error instanceof GenerationMovedOn) return;
    const code: GenerationError = error instanceof AuthorisationLost ? 'authorisation_lost' : 'generation_failed';
    logger.error('generation failed', { project_id: project.id, document_id: document.id, generation_id: g.id, code, error: error as Error });
    await fail(project.id, document, code, new Date(), true);
  }
}

/** Ends the generation as failed with a safe code, and releases the lease when it still holds it. */
async function fail(projectId: string, d: StoredDocument, code: GenerationError, at: Date, holdsLease: boolean): Promise<void> {
  const update = generationUpdate(projectId, d.id, d.generation.id, { status: 'failed', error_code: code, finished_at: at.toISOString() }, [
    'queued',
    'running',
  ]);
  try {
    if (holdsLease) await commit([update, releaseLease(projectId, d.generation.id)]);
    else await commit([update]);
  } catch (error) {
    if (!(error instanceof GenerationMovedOn)) throw error;
  }
}
