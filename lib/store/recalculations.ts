import * as z from 'zod';
import type { Permission } from '../domain/permissions.js';
import { once } from '../domain/validation.js';
import { parseEach, parseStored, sweptFields } from './entity.js';
import { accessScopeSchema, type AccessScope } from './identity.js';
import { gsi1, keys, type Key } from './keys.js';
import { getOne, type Item, queryAll } from './read.js';
import type { WriteItem } from './transact.js';

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

const subjectSchema = once(() =>
  z.union([z.object({ organisation_id: z.string() }), z.object({ system_id: z.string() }), z.object({ project_id: z.string() })]),
);

/**
 * A marker as stored. Markers written before subjects were stored are named by their key alone,
 * and before the sweep kept the latest request by their first; the worker's lease and the sweep's
 * re-queue fields are there for the sweep to judge. The authority's permissions are read as
 * names: one retired since the request is one no grant holds any more.
 */
const markerSchema = once(() =>
  z.looseObject({
    subject: subjectSchema().optional(),
    requested_at: z.string(),
    last_requested_at: z.string().optional(),
    requested_by: z.string(),
    token_id: z.string(),
    authority: z.object({ scope: accessScopeSchema(), permissions: z.array(z.string()) }),
    generation: z.number(),
    stopped: z.string().optional(),
    ...sweptFields(),
  }),
);
/** With its key, which the sweep writes to and which names the subject of a marker from before subjects were stored. */
export type RecalculationMarker = z.output<ReturnType<typeof markerSchema>> & Key;

const asMarker = (item: Item): RecalculationMarker => ({ ...parseStored(markerSchema(), item), PK: item.PK, SK: item.SK });

/** A marker prefetched with the resource it concerns (health reads them); undefined when there is none. */
export const asRecalculationMarker = (item: Item | undefined): RecalculationMarker | undefined => (item ? asMarker(item) : undefined);

/** The pending marker of a subject, strongly consistent: the job reads what the request that queued it committed. */
export const recalculationMarkerOf = async (subject: RecalculationSubject): Promise<RecalculationMarker | undefined> =>
  asRecalculationMarker(await getOne(markerKey(subject)));

/** Every pending marker (the sweep's). */
export async function pendingRecalculations(): Promise<RecalculationMarker[]> {
  const items = await queryAll({
    IndexName: 'GSI1',
    KeyConditionExpression: 'GSI1PK = :pk',
    ExpressionAttributeValues: { ':pk': gsi1.pendingRecalculations },
  });
  return parseEach('recalculation marker', items, asMarker);
}

/** The subject a marker names (markers from before subjects were stored are named by their key). */
export function subjectOf(marker: RecalculationMarker): RecalculationSubject | undefined {
  if (marker.subject) return marker.subject;
  const [kind, id] = marker.PK.split('#');
  if (!id) return undefined;
  return kind === 'ORG' ? { organisation_id: id } : kind === 'SYSTEM' ? { system_id: id } : kind === 'PROJECT' ? { project_id: id } : undefined;
}
