import * as z from 'zod';
import type { StoredSystem } from '../domain/systems.js';
import { itemAbsent, ownedBy } from './conditions.js';
import { collectionCount } from './counters.js';
import { parseStored, storedSchema } from './entity.js';
import { keys, prefixes } from './keys.js';
import { queryAll, queryPage, type Item } from './read.js';
import type { OnConditionFailed, WriteItem } from './transact.js';
import { addToCounter, replaceVersioned } from './versioned.js';
import { once } from '../domain/validation.js';

/** A system as stored under keys.system, in its organisation's partition. */
export const systemSchema = once(() =>
  storedSchema<StoredSystem>()(
    z.looseObject({
      id: z.string(),
      organisation_id: z.string(),
      name: z.string(),
      short_code: z.string(),
      description: z.string().nullable(),
      created_at: z.string(),
      updated_at: z.string(),
      version: z.number(),
    }),
  ),
);

export const toSystem = (item: Item): StoredSystem => parseStored(systemSchema(), item);

const systemItem = (s: StoredSystem) => ({ ...keys.system(s.organisation_id, s.id), entity: 'system', ...s });

function claimCode(s: StoredSystem, onTaken: OnConditionFailed): WriteItem {
  return {
    kind: 'put',
    item: { ...keys.systemCode(s.organisation_id, s.short_code), entity: 'system-code', system_id: s.id },
    condition: itemAbsent(),
    onConditionFailed: onTaken,
  };
}

/** A new system: identity, short-code claim and the organisation's system count under its licence limit. */
export function createSystemWrites(s: StoredSystem, limit: number, onLimit: () => Error, onCodeTaken: OnConditionFailed): WriteItem[] {
  return [
    { kind: 'put', item: systemItem(s), condition: itemAbsent() },
    claimCode(s, onCodeTaken),
    addToCounter(keys.organisationCounters(s.organisation_id), 'systems', 1, { max: limit, onLimit }),
  ];
}

export function updateSystemWrites(before: StoredSystem, after: StoredSystem, onCodeTaken: OnConditionFailed): WriteItem[] {
  const writes: WriteItem[] = [replaceVersioned(systemItem(after), before.version)];
  if (after.short_code !== before.short_code) {
    writes.push(
      { kind: 'delete', key: keys.systemCode(before.organisation_id, before.short_code), condition: ownedBy('system_id', before.id) },
      claimCode(after, onCodeTaken),
    );
  }
  return writes;
}

const systemIdSchema = once(() => z.looseObject({ id: z.string() }));

/** The ids of every system of an organisation. */
export async function systemIdsOf(organisationId: string): Promise<string[]> {
  const items = await queryAll({
    KeyConditionExpression: 'PK = :pk AND begins_with(SK, :sk)',
    ExpressionAttributeValues: { ':pk': keys.organisation(organisationId).PK, ':sk': prefixes.system },
    // With the system's key, so that a system without its id is refused by name.
    ProjectionExpression: 'PK, SK, id',
  });
  return items.map((s) => parseStored(systemIdSchema(), s).id);
}

/** One page of an organisation's systems, oldest first. */
export async function systemsPage(organisationId: string, page: { number: number; size: number }): Promise<StoredSystem[]> {
  const items = await queryPage(
    {
      KeyConditionExpression: 'PK = :pk AND begins_with(SK, :sk)',
      ExpressionAttributeValues: { ':pk': keys.organisation(organisationId).PK, ':sk': prefixes.system },
    },
    page,
  );
  return items.map(toSystem);
}

/** The organisation's system count, from its counters item. */
export const systemCount = (organisationCounters: Item | undefined): number => collectionCount(organisationCounters, 'systems');
