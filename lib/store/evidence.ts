import { createHash } from 'node:crypto';
import { once } from '../domain/validation.js';
import * as z from 'zod';
import {
  EVIDENCE_KINDS,
  EVIDENCE_STATUSES,
  MAX_EVIDENCE_PER_CONTROL,
  Metadata,
  sourceIdentity,
  type EvidenceSource,
  type StoredEvidence,
} from '../domain/evidence.js';
import { preconditionFailed, validationFailed } from '../errors.js';
import { attributeEquals, belowLimit, itemAbsent, versionIs } from './conditions.js';
import { counterSchema, countOf, readCounts } from './counters.js';
import { parseFound, parseStored, storedSchema } from './entity.js';
import { gsi1, keys, type Key } from './keys.js';
import { keyString, queryUpTo, type Collection, type Item } from './read.js';
import type { OnConditionFailed, WriteItem } from './transact.js';
import { staleOrMissing } from './versioned.js';

/**
 * A control's evidence in the project partition, beside the control but outside its key range
 * (list pages Query `CONTROL#…` ranges): a head item `EVIDENCE#<control>` with the revision that
 * every change of the control's evidence moves and the live item count, then one item per
 * evidence `EVIDENCE#<control>#<evidence>`. One Query on the prefix reads the head and every item,
 * in parallel with the authentication BatchGetItem, so a control detail stays one round trip; the
 * control item never grows with its evidence, and evidence writes never touch the control's version.
 */
export const evidenceCollection = (projectId: string, controlId: string): Collection => ({
  PK: keys.project(projectId).PK,
  prefix: keys.evidenceHead(projectId, controlId).SK,
});

const sourceSchema = once(() =>
  z.discriminatedUnion('kind', [
    z.looseObject({ kind: z.literal('file'), control_id: z.string(), evidence_id: z.string() }),
    z.looseObject({ kind: z.literal('register'), definition_id: z.string() }),
    z.looseObject({ kind: z.literal('library'), definition_id: z.string() }),
    z.looseObject({ kind: z.literal('repository'), connection_id: z.string(), path: z.string(), ref: z.string() }),
  ]),
);

/**
 * An evidence item as stored under keys.evidence, and its pinned copies under keys.evidenceVersion:
 * the file fields are an upload's or a file link's, mirrored by the scan pipeline.
 */
export const evidenceSchema = once(() =>
  storedSchema<StoredEvidence>()(
    z.looseObject({
      id: z.string(),
      project_id: z.string(),
      control_id: z.string(),
      kind: z.enum(EVIDENCE_KINDS),
      status: z.enum(EVIDENCE_STATUSES),
      version: z.number(),
      ...Metadata(),
      upload_id: z.string().optional(),
      file_status: z.enum(['quarantine', 'ready', 'error']).optional(),
      error_code: z.string().nullable().optional(),
      file_name: z.string().optional(),
      size: z.number().optional(),
      sha256: z.string().optional(),
      detected_type: z.string().nullable().optional(),
      s3_key: z.string().optional(),
      source: sourceSchema().nullable(),
      replaces: z.string().optional(),
      created_at: z.string(),
      created_by: z.string(),
      updated_at: z.string(),
      updated_by: z.string(),
    }),
  ),
);

export const toEvidence = (item: Item): StoredEvidence => parseStored(evidenceSchema(), item);

/** An upload in the project's file index: ready, so its file facts are all there. */
const readyFileSchema = once(() => evidenceSchema().extend({ upload_id: z.string(), file_name: z.string(), size: z.number() }));

export interface ControlEvidence {
  /** Moves with every change of the control's evidence, scan results included: part of the control's ETag. */
  revision: number;
  count: number;
  items: StoredEvidence[];
}

/** A control's evidence head (keys.evidenceHead): counters that headMoves and the scan pipeline ADD to. */
const headSchema = once(() => counterSchema(['revision', 'count']));

/** The head and the items of one control, from its collection's Query (oldest item first: IDs are ULIDs). */
export function controlEvidence(projectId: string, controlId: string, items: Item[]): ControlEvidence {
  const headSk = keys.evidenceHead(projectId, controlId).SK;
  const head = readCounts(
    headSchema(),
    items.find((i) => i.SK === headSk),
  );
  return {
    revision: countOf(head, 'revision'),
    count: countOf(head, 'count'),
    items: items.filter((i) => i.SK !== headSk).map(toEvidence),
  };
}

export const evidenceItem = (e: StoredEvidence): Key & Record<string, unknown> => ({
  ...keys.evidence(e.project_id, e.control_id, e.id),
  entity: 'evidence',
  ...e,
  // Uploads only, in every whole-item write: the project's files, read by link options without the rest of its evidence.
  ...(e.kind === 'upload' ? { GSI1PK: gsi1.evidenceFiles(e.project_id), GSI1SK: `${e.control_id}#${e.id}` } : {}),
  // The scan pipeline moves the control's evidence revision with the file's status (files/scan.ts).
  ...(e.upload_id ? { revision_key: keys.evidenceHead(e.project_id, e.control_id) } : {}),
});

export const evidenceLimitReached = () =>
  validationFailed([
    { pointer: '', code: 'evidence_limit_reached', detail: `A control holds at most ${MAX_EVIDENCE_PER_CONTROL} evidence items; delete one first.` },
  ]);

/** The head's revision moves with every change; its count moves with creates and deletes, bounded on the way up. */
export function headMoves(projectId: string, controlId: string, countDelta: number): WriteItem {
  return {
    kind: 'update',
    key: keys.evidenceHead(projectId, controlId),
    update: 'ADD #r :one, #c :d SET #e = :e',
    names: { '#r': 'revision', '#c': 'count', '#e': 'entity' },
    values: { ':one': 1, ':d': countDelta, ':e': 'evidence-head' },
    ...(countDelta > 0 ? { condition: belowLimit('count', MAX_EVIDENCE_PER_CONTROL), onConditionFailed: evidenceLimitReached } : {}),
  };
}

export function evidenceCreateWrites(e: StoredEvidence): WriteItem[] {
  return [{ kind: 'put', item: evidenceItem(e), condition: itemAbsent() }, headMoves(e.project_id, e.control_id, 1)];
}

/** A whole-item write conditional on the version the If-Match named (412 when stale, 404 when gone). */
export function evidenceReplaceWrites(next: StoredEvidence, expectedVersion: number): WriteItem[] {
  return [
    { kind: 'put', item: { ...evidenceItem(next), version: expectedVersion + 1 }, condition: versionIs(expectedVersion), onConditionFailed: staleOrMissing },
    headMoves(next.project_id, next.control_id, 0),
  ];
}

/**
 * A link's claim on its source, outside the evidence prefix (`EVIDENCELINK#`, so a control's
 * evidence Query never reads it): put with the link on condition of its absence, deleted with it,
 * so that a control links each source once even when two identical requests race.
 */
export const linkClaimKey = (projectId: string, controlId: string, source: EvidenceSource) =>
  keys.evidenceLinkClaim(projectId, controlId, createHash('sha256').update(sourceIdentity(source)).digest('hex'));

/** A claim as stored: the link that holds it. */
const linkClaimSchema = once(() => z.looseObject({ evidence_id: z.string() }));
export const asLinkClaim = (item: Item | undefined): { evidence_id: string } | undefined => parseFound(linkClaimSchema(), item);

/** A new link and its claim, first, so that a claim taken meanwhile is the failure reported. */
export function evidenceLinkCreateWrites(e: StoredEvidence & { source: EvidenceSource }, onClaimTaken: OnConditionFailed): WriteItem[] {
  const claim = { ...linkClaimKey(e.project_id, e.control_id, e.source), entity: 'evidence-link-claim', evidence_id: e.id };
  return [{ kind: 'put', item: claim, condition: itemAbsent(), onConditionFailed: onClaimTaken }, ...evidenceCreateWrites(e), ...mirrorMoves(e, 'ADD')];
}

/**
 * A file link is a mirror of its upload: the upload record lists it, so that a malicious verdict
 * on the bytes turns the link to error as it turns the upload's own item (files/scan.ts).
 */
function mirrorMoves(e: StoredEvidence, op: 'ADD' | 'DELETE'): WriteItem[] {
  if (e.kind !== 'file_link' || !e.upload_id) return [];
  const mirror = new Set([keyString(keys.evidence(e.project_id, e.control_id, e.id))]);
  return [{ kind: 'update', key: keys.upload(e.upload_id), update: `${op} #m :m`, names: { '#m': 'mirrors' }, values: { ':m': mirror } }];
}

/**
 * A replacement: the old item retired at the version the If-Match named and the new one created,
 * with one move of the head (a transaction writes an item once, and the count stays).
 */
export function evidenceSwapWrites(retired: StoredEvidence, expectedVersion: number, next: StoredEvidence): WriteItem[] {
  return [
    {
      kind: 'delete',
      key: keys.evidence(retired.project_id, retired.control_id, retired.id),
      condition: versionIs(expectedVersion),
      onConditionFailed: staleOrMissing,
    },
    { kind: 'put', item: evidenceItem(next), condition: itemAbsent() },
    headMoves(next.project_id, next.control_id, 0),
  ];
}

/** The item gone, counted out, and a link's claim freed, so that the same source can be linked again. */
export function evidenceDeleteWrites(e: StoredEvidence, expectedVersion: number): WriteItem[] {
  return [
    { kind: 'delete', key: keys.evidence(e.project_id, e.control_id, e.id), condition: versionIs(expectedVersion), onConditionFailed: staleOrMissing },
    headMoves(e.project_id, e.control_id, -1),
    ...(e.source ? [{ kind: 'delete' as const, key: linkClaimKey(e.project_id, e.control_id, e.source) }] : []),
    ...mirrorMoves(e, 'DELETE'),
  ];
}

/**
 * A capture's writes: an immutable copy of each pinned item at the version it pinned (readable
 * after the live item is replaced or deleted), and the evidence unchanged since the transition
 * read it (seed, States rule 2: the check runs under the row lock of the one transaction).
 */
export function evidenceCaptureWrites(projectId: string, controlId: string, evidence: ControlEvidence, pinned: { evidence_id: string }[]): WriteItem[] {
  const unchanged: WriteItem = {
    kind: 'check',
    key: keys.evidenceHead(projectId, controlId),
    condition: evidence.revision === 0 ? itemAbsent() : attributeEquals('revision', evidence.revision),
    onConditionFailed: () => preconditionFailed(),
  };
  const copies: WriteItem[] = pinned.map(({ evidence_id }) => {
    const e = evidence.items.find((i) => i.id === evidence_id)!;
    return { kind: 'put', item: { ...keys.evidenceVersion(projectId, e.id, e.version), entity: 'evidence-version', ...e } };
  });
  return [unchanged, ...copies];
}

/**
 * Page `page.number` of the ready files of a project's controls other than one, from the file
 * index, and whether any follow. The index holds uploads alone, so references, links and heads
 * are never read; without an offset in DynamoDB, a page reads the files before it and one after.
 * Eventually consistent, as every index read: a file that just became ready may show a moment later.
 */
export async function readyFilesPage(projectId: string, exceptControlId: string, page: { number: number; size: number }) {
  const skip = (page.number - 1) * page.size;
  const found = await queryUpTo(
    {
      IndexName: 'GSI1',
      KeyConditionExpression: 'GSI1PK = :pk',
      FilterExpression: '#s = :ready AND #c <> :control',
      ExpressionAttributeNames: { '#s': 'file_status', '#c': 'control_id' },
      ExpressionAttributeValues: { ':pk': gsi1.evidenceFiles(projectId), ':ready': 'ready', ':control': exceptControlId },
    },
    skip + page.size + 1,
  );
  return { items: found.slice(skip, skip + page.size).map((item) => parseStored(readyFileSchema(), item)), hasMore: found.length > skip + page.size };
}
