import type { Permission } from '../domain/permissions.js';
import type { AccessScope } from '../store/identity.js';
import { gsi1, keys, type Key } from '../store/keys.js';
import type { WriteItem } from '../store/transact.js';
import { logger } from '../log.js';
import { sendJob } from '../queues/sqs.js';

/** Whose projects a recalculation covers: an organisation's, a system's, or one project. */
export type RecalculationSubject = { organisation_id: string } | { system_id: string } | { project_id: string };

/** Where the marker of a subject lives: in the partition of the organisation, system or project. */
export function markerKey(subject: RecalculationSubject): Key {
  if ('organisation_id' in subject) return keys.organisationRecalculation(subject.organisation_id);
  if ('system_id' in subject) return keys.applicabilityRecalculation(subject.system_id);
  return keys.projectRecalculation(subject.project_id);
}

interface RecalculationRequest {
  subject: RecalculationSubject;
  organisationId: string;
  userId: string;
  tokenId: string;
  authority: { scope: AccessScope; permissions: Permission[] };
  now: Date;
}

/**
 * The durable marker of a recalculation request, written in the transaction of the change that
 * causes it. Repeated requests fold into one marker; `requested_at` keeps the oldest so health can
 * say how long recommendations have been stale, and `generation` lets the job clear only what it
 * has seen. The marker carries who asked, for the job's revalidation; a new request by someone who
 * still has authority restarts a marker the job had stopped.
 */
export function recalculationMarker(r: RecalculationRequest): WriteItem {
  return {
    kind: 'update',
    key: markerKey(r.subject),
    update:
      'SET #e = :e, #o = :o, #subject = :subject, #r = if_not_exists(#r, :now), #l = :now, #b = :b, #t = :t, #a = :a, #g1 = :g1, #g2 = if_not_exists(#g2, :g2) ADD #gen :one REMOVE #stopped',
    names: {
      '#e': 'entity',
      '#o': 'organisation_id',
      '#subject': 'subject',
      '#r': 'requested_at',
      '#l': 'last_requested_at',
      '#b': 'requested_by',
      '#t': 'token_id',
      '#a': 'authority',
      '#g1': 'GSI1PK',
      '#g2': 'GSI1SK',
      '#gen': 'generation',
      '#stopped': 'stopped',
    },
    values: {
      ':e': 'applicability-recalculation',
      ':o': r.organisationId,
      ':subject': r.subject,
      ':now': r.now.toISOString(),
      ':b': r.userId,
      ':t': r.tokenId,
      ':a': r.authority,
      ':g1': gsi1.pendingRecalculations,
      ':g2': `${r.now.toISOString()}#${markerKey(r.subject).PK}`,
      ':one': 1,
    },
  };
}

/**
 * Queues the job after the marker is committed. A failed send is not the caller's failure: the
 * marker stays, health reports it, and the sweep re-queues pending markers.
 */
export async function queueRecalculation(subject: RecalculationSubject): Promise<void> {
  await sendJob('recalculate', subject).catch((error: unknown) =>
    logger.warn('recalculation not queued; the sweep will', { ...subject, error: error as Error }),
  );
}
