import { createHash } from 'node:crypto';
import { isValid as isUlid } from 'ulid';
import * as z from 'zod';
import { isDocumentKey } from '../domain/documents.js';
import type { RowReference, StoredRegisterRow } from '../domain/register-rows.js';
import { REGISTER_OWNERS } from '../domain/registers.js';
import { itemAbsent, ownedBy } from './conditions.js';
import { activeContact } from './contacts.js';
import { readIndex, type ControlIndex } from './control-filters.js';
import { countOf, type Counts, REGISTER_ROW_ORDERS, REGISTER_ROWS } from './counters.js';
import { parseStored } from './entity.js';
import { keys, prefixes, type Key } from './keys.js';
import { getMany, keyString, queryPage, queryUpTo, type Item } from './read.js';
import { commit, type OnConditionFailed, type WriteItem } from './transact.js';
import { reviewDueKeys } from './review-due.js';
import { addToCounter, replaceVersioned } from './versioned.js';
import { once } from '../domain/validation.js';

/**
 * Register rows of every level. A row lives in its owner's partition (project, system or
 * organisation), next to the claims of its logical keys and the owner's counters, so that a
 * create or an update writes one partition in one transaction.
 */
export type RowScope = { owner: 'project'; projectId: string } | { owner: 'system'; systemId: string } | { owner: 'organisation'; organisationId: string };

export function rowKey(scope: RowScope, definitionId: string, rowId: string): Key {
  if (scope.owner === 'project') return keys.projectRegisterRow(scope.projectId, definitionId, rowId);
  if (scope.owner === 'system') return keys.systemRegisterRow(scope.systemId, definitionId, rowId);
  return keys.organisationRegisterRow(scope.organisationId, definitionId, rowId);
}

/** The digest keeps claim keys short and unambiguous whatever the key values contain (sort keys hold at most 1 KiB). */
function claimKey(scope: RowScope, definitionId: string, logicalKey: string): Key {
  const digest = createHash('sha256').update(logicalKey).digest('hex');
  if (scope.owner === 'project') return keys.projectRegisterRowKey(scope.projectId, definitionId, digest);
  if (scope.owner === 'system') return keys.systemRegisterRowKey(scope.systemId, definitionId, digest);
  return keys.organisationRegisterRowKey(scope.organisationId, definitionId, digest);
}

export function countersKey(scope: RowScope): Key {
  if (scope.owner === 'project') return keys.projectCounters(scope.projectId);
  if (scope.owner === 'system') return keys.systemCounters(scope.systemId);
  return keys.organisationCounters(scope.organisationId);
}

/** The counter attribute of one register's rows in the owner's counters item. */
export const rowCountAttribute = (definitionId: string) => `${REGISTER_ROWS}${definitionId}`;

/**
 * A register's row count, from its owner's counts (collectionCounts of countersKey): parsed once by
 * the caller, since a list reads this and the order count from the same item.
 */
export const rowCount = (counts: Counts | undefined, definitionId: string): number => countOf(counts, rowCountAttribute(definitionId));

/** How many rows of a register have their order item: fewer than its rows before `backfillRowOrder` ran. */
const orderCountAttribute = (definitionId: string) => `${REGISTER_ROW_ORDERS}${definitionId}`;

const orderPrefix = (definitionId: string) => `${prefixes.registerRowOrder}${definitionId}#`;

/** A row's order item: its keys and kind only (about 100 bytes, never changed), so that skipping to a deep page reads these instead of whole rows. */
const orderItem = (scope: RowScope, definitionId: string, rowId: string) => ({
  PK: countersKey(scope).PK,
  SK: `${orderPrefix(definitionId)}${rowId}`,
  entity: 'row-order',
});

interface RowRecord {
  row: StoredRegisterRow;
  /** The normalised logical key the row holds a claim on. */
  logicalKey: string;
}

/** A row as stored under rowKey, beside the normalised logical key it claims. */
export const rowSchema = once(
  () =>
    z.looseObject({
      id: z.string(),
      definition_id: z.string(),
      owner: z.enum(REGISTER_OWNERS),
      organisation_id: z.string(),
      system_id: z.string().nullable(),
      // Project rows only: system and organisation rows never had one.
      project_id: z.string().optional(),
      // A column without a value is absent, never null (mergeRowData removes it).
      data: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])),
      created_at: z.string(),
      updated_at: z.string(),
      version: z.number().int(),
      logical_key: z.string(),
    }) satisfies z.ZodType<StoredRegisterRow & { logical_key: string }>,
);

export function toRow(item: Item): RowRecord {
  const { logical_key: logicalKey, ...row } = parseStored(rowSchema(), item);
  return { row, logicalKey };
}

/** Project rows with a review_due date join the review-due index, in every whole-item write. */
const reviewDue = (scope: RowScope, row: StoredRegisterRow) =>
  scope.owner === 'project' && typeof row.data.review_due === 'string'
    ? reviewDueKeys({ kind: 'register-row', projectId: scope.projectId, definitionId: row.definition_id, id: row.id }, row.data.review_due)
    : {};

const rowItem = (scope: RowScope, r: RowRecord) => ({
  ...rowKey(scope, r.row.definition_id, r.row.id),
  entity: 'register-row',
  ...r.row,
  logical_key: r.logicalKey,
  ...reviewDue(scope, r.row),
});

function claim(scope: RowScope, r: RowRecord, onTaken: OnConditionFailed): WriteItem {
  return {
    kind: 'put',
    item: { ...claimKey(scope, r.row.definition_id, r.logicalKey), entity: 'register-row-key', row_id: r.row.id },
    condition: itemAbsent(),
    onConditionFailed: onTaken,
  };
}

/** A new row, the claim on its logical key, its order item and the register's counts, together. */
export function createRowWrites(scope: RowScope, r: RowRecord, onKeyTaken: OnConditionFailed): WriteItem[] {
  return [
    { kind: 'put', item: rowItem(scope, r), condition: itemAbsent() },
    claim(scope, r, onKeyTaken),
    { kind: 'put', item: orderItem(scope, r.row.definition_id, r.row.id) },
    // One update of the counters item: a transaction writes an item at most once.
    {
      kind: 'update',
      key: countersKey(scope),
      update: 'ADD #rows :one, #orders :one',
      names: { '#rows': rowCountAttribute(r.row.definition_id), '#orders': orderCountAttribute(r.row.definition_id) },
      values: { ':one': 1 },
    },
  ];
}

/** The row at the version the If-Match named; a changed logical key moves its claim. */
export function updateRowWrites(scope: RowScope, before: RowRecord, after: RowRecord, onKeyTaken: OnConditionFailed): WriteItem[] {
  const writes: WriteItem[] = [replaceVersioned(rowItem(scope, after), before.row.version)];
  if (after.logicalKey !== before.logicalKey) {
    writes.push(
      { kind: 'delete', key: claimKey(scope, before.row.definition_id, before.logicalKey), condition: ownedBy('row_id', before.row.id) },
      claim(scope, after, onKeyTaken),
    );
  }
  return writes;
}

const rowPrefix = (definitionId: string) => `${prefixes.registerRow}${definitionId}#`;

const range = (scope: RowScope, prefix: string) => ({
  KeyConditionExpression: 'PK = :pk AND begins_with(SK, :sk)',
  ExpressionAttributeValues: { ':pk': countersKey(scope).PK, ':sk': prefix },
});

const idsIn = async (scope: RowScope, prefix: string, limit: number) =>
  (await queryUpTo({ ...range(scope, prefix), ProjectionExpression: 'SK' }, limit)).map((item) => String(item.SK).slice(prefix.length));

/**
 * One page of a register's rows, oldest first (row IDs are monotonic ULIDs). A deep page reads the
 * order items of the rows before it, then its own rows only, from the last of those; while some
 * rows lack their order item (`counts` says so), it reads every row before the page instead.
 */
export async function rowsPage(
  scope: RowScope,
  definitionId: string,
  page: { number: number; size: number },
  counts: Counts | undefined,
): Promise<RowRecord[]> {
  const skip = (page.number - 1) * page.size;
  const ordered = countOf(counts, orderCountAttribute(definitionId)) >= rowCount(counts, definitionId);
  if (skip === 0 || !ordered) return (await queryPage(range(scope, rowPrefix(definitionId)), page)).map(toRow);
  const before = await idsIn(scope, orderPrefix(definitionId), skip);
  if (before.length < skip) return [];
  return (await queryUpTo(range(scope, rowPrefix(definitionId)), page.size, rowKey(scope, definitionId, before.at(-1)!))).map(toRow);
}

/** Every row of a register, oldest first: what an evidence link to the register answers as its content. */
export async function allRows(scope: RowScope, definitionId: string): Promise<RowRecord[]> {
  return (await queryUpTo(range(scope, rowPrefix(definitionId)), Infinity)).map(toRow);
}

class OrderItemExists extends Error {
  override readonly name = 'OrderItemExists';
}

/**
 * Writes the order item of every row of a register that lacks one (rows created before order items
 * existed), each with its count, so that deep pages take the short path. Idempotent: an order item
 * already there, written by an earlier run or by the row's own create, is left as it is.
 */
export async function backfillRowOrder(scope: RowScope, definitionId: string): Promise<number> {
  const [rows, ordered] = await Promise.all([idsIn(scope, rowPrefix(definitionId), Infinity), idsIn(scope, orderPrefix(definitionId), Infinity)]);
  const present = new Set(ordered);
  let written = 0;
  for (const rowId of rows) {
    if (present.has(rowId)) continue;
    try {
      await commit([
        { kind: 'put', item: orderItem(scope, definitionId, rowId), condition: itemAbsent(), onConditionFailed: () => new OrderItemExists() },
        addToCounter(countersKey(scope), orderCountAttribute(definitionId), 1),
      ]);
      written++;
    } catch (error) {
      if (!(error instanceof OrderItemExists)) throw error;
    }
  }
  return written;
}

/** Where references resolve: contacts in the system; controls in the project, when there is one. */
export interface ReferenceHome {
  systemId: string;
  projectId?: string;
}

/** A reference code (ISM-1234) names a control of the project by its catalogue identifier or label, as the control index holds them (lower case). */
export function indexNamesCode(index: ControlIndex | undefined, code: string): boolean {
  const wanted = code.toLowerCase();
  return (index?.rows ?? []).some(([id, label]) => id === wanted || label === wanted);
}

/**
 * The references that resolve to nothing, found in one BatchGetItem: a contact must be an active
 * contact of the system; a control ULID a control of the project, and a reference code one the
 * project's control index names (never a read of every control); a document key one of the catalogue.
 */
export async function missingReferences(home: ReferenceHome, refs: readonly RowReference[]): Promise<RowReference[]> {
  const { projectId } = home;
  const keyOf = (r: RowReference): Key | undefined => {
    if (r.source === 'contacts') return keys.contact(home.systemId, r.value);
    if (r.source === 'controls' && projectId) return isUlid(r.value) ? keys.control(projectId, r.value) : keys.projectControlIndex(projectId);
    return undefined;
  };
  const wanted = refs.flatMap((r) => keyOf(r) ?? []);
  const found = wanted.length ? await getMany(wanted) : new Map<string, Item>();
  const resolves = (r: RowReference): boolean => {
    if (r.source === 'documents') return isDocumentKey(r.value);
    const key = keyOf(r);
    const item = key && found.get(keyString(key));
    if (r.source === 'contacts') return activeContact(item) !== undefined;
    return isUlid(r.value) ? item !== undefined : indexNamesCode(readIndex(item), r.value);
  };
  return refs.filter((r) => !resolves(r));
}
