import { createHash } from 'node:crypto';
import type { StoredRegisterRow } from '../domain/register-rows.js';
import { itemAbsent, ownedBy } from './conditions.js';
import { activeContact } from './contacts.js';
import { keys, prefixes, withoutKeys, type Key } from './keys.js';
import { getMany, keyString, queryPage, type Item } from './read.js';
import type { OnConditionFailed, WriteItem } from './transact.js';
import { addToCounter, replaceVersioned } from './versioned.js';

/**
 * Register rows of the system and organisation levels. A row lives in its owner's partition, next
 * to the claims of its logical keys and the owner's counters, so that a create or an update writes
 * one partition in one transaction.
 */
export type RowScope = { owner: 'system'; systemId: string } | { owner: 'organisation'; organisationId: string };

export const rowKey = (scope: RowScope, definitionId: string, rowId: string): Key =>
  scope.owner === 'system'
    ? keys.systemRegisterRow(scope.systemId, definitionId, rowId)
    : keys.organisationRegisterRow(scope.organisationId, definitionId, rowId);

/** The digest keeps claim keys short and unambiguous whatever the key values contain (sort keys hold at most 1 KiB). */
const claimKey = (scope: RowScope, definitionId: string, logicalKey: string): Key => {
  const digest = createHash('sha256').update(logicalKey).digest('hex');
  return scope.owner === 'system'
    ? keys.systemRegisterRowKey(scope.systemId, definitionId, digest)
    : keys.organisationRegisterRowKey(scope.organisationId, definitionId, digest);
};

export const countersKey = (scope: RowScope): Key =>
  scope.owner === 'system' ? keys.systemCounters(scope.systemId) : keys.organisationCounters(scope.organisationId);

/** The counter attribute of one register's rows in the owner's counters item. */
export const rowCountAttribute = (definitionId: string) => `register_rows_${definitionId}`;

export const rowCount = (counters: Item | undefined, definitionId: string): number => Number(counters?.[rowCountAttribute(definitionId)] ?? 0);

interface RowRecord {
  row: StoredRegisterRow;
  /** The normalised logical key the row holds a claim on. */
  logicalKey: string;
}

export function toRow(item: Item): RowRecord {
  const { logical_key: logicalKey, ...row } = withoutKeys(item) as unknown as StoredRegisterRow & { logical_key: string };
  return { row, logicalKey };
}

const rowItem = (scope: RowScope, r: RowRecord) => ({
  ...rowKey(scope, r.row.definition_id, r.row.id),
  entity: 'register-row',
  ...r.row,
  logical_key: r.logicalKey,
});

function claim(scope: RowScope, r: RowRecord, onTaken: OnConditionFailed): WriteItem {
  return {
    kind: 'put',
    item: { ...claimKey(scope, r.row.definition_id, r.logicalKey), entity: 'register-row-key', row_id: r.row.id },
    condition: itemAbsent(),
    onConditionFailed: onTaken,
  };
}

/** A new row, the claim on its logical key and the register's row count, together. */
export function createRowWrites(scope: RowScope, r: RowRecord, onKeyTaken: OnConditionFailed): WriteItem[] {
  return [
    { kind: 'put', item: rowItem(scope, r), condition: itemAbsent() },
    claim(scope, r, onKeyTaken),
    addToCounter(countersKey(scope), rowCountAttribute(r.row.definition_id), 1),
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

/** One page of a register's rows, oldest first (row IDs are monotonic ULIDs). */
export async function rowsPage(scope: RowScope, definitionId: string, page: { number: number; size: number }): Promise<RowRecord[]> {
  const partition = countersKey(scope).PK;
  const items = await queryPage(
    {
      KeyConditionExpression: 'PK = :pk AND begins_with(SK, :sk)',
      ExpressionAttributeValues: { ':pk': partition, ':sk': `${prefixes.registerRow}${definitionId}#` },
    },
    page,
  );
  return items.map(toRow);
}

/** Which of these IDs are active contacts of the system (deleted contacts are absent, seed). */
export async function activeContactIds(systemId: string, ids: string[]): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const found = await getMany(ids.map((id) => keys.contact(systemId, id)));
  return new Set(ids.filter((id) => activeContact(found.get(keyString(keys.contact(systemId, id))))));
}
