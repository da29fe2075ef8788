import * as z from 'zod';
import type { StoredContact } from '../domain/contacts.js';
import { itemAbsent, versionIs } from './conditions.js';
import { collectionCount } from './counters.js';
import { parseStored, storedSchema } from './entity.js';
import { keys, prefixes } from './keys.js';
import { queryPage, type Item } from './read.js';
import type { WriteItem } from './transact.js';
import { addToCounter, replaceVersioned, staleOrMissing } from './versioned.js';
import { once } from '../domain/validation.js';

/**
 * Contacts live in their system's partition. They are deleted in the web interface, outside this
 * API, through `deleteContactWrites`: the contact leaves the CONTACT# range for a history item, so
 * that pages and the count in the system counters hold active contacts only (seed: deleted
 * contacts are absent).
 */
export const contactSchema = once(() =>
  storedSchema<StoredContact>()(
    z.looseObject({
      id: z.string(),
      system_id: z.string(),
      organisation_id: z.string(),
      name: z.string(),
      role: z.string().nullable(),
      email: z.string().nullable(),
      phone: z.string().nullable(),
      organisation_name: z.string().nullable(),
      status: z.enum(['active', 'deleted']),
      created_at: z.string(),
      updated_at: z.string(),
      version: z.number(),
    }),
  ),
);

export const toContact = (item: Item): StoredContact => parseStored(contactSchema(), item);

const contactItem = (c: StoredContact) => ({ ...keys.contact(c.system_id, c.id), entity: 'contact', ...c });

export function createContactWrites(c: StoredContact): WriteItem[] {
  return [{ kind: 'put', item: contactItem(c), condition: itemAbsent() }, addToCounter(keys.systemCounters(c.system_id), 'contacts', 1)];
}

export function updateContactWrites(before: StoredContact, after: StoredContact): WriteItem[] {
  return [replaceVersioned(contactItem(after), before.version)];
}

/** The system's count of active contacts, from its counters item. */
export const contactCount = (systemCounters: Item | undefined): number => collectionCount(systemCounters, 'contacts');

/** An active contact of this system, from items read in the authentication round trip. */
export function activeContact(item: Item | undefined): StoredContact | undefined {
  const contact = item ? toContact(item) : undefined;
  return contact?.status === 'active' ? contact : undefined;
}

export async function contactsPage(systemId: string, page: { number: number; size: number }): Promise<StoredContact[]> {
  const items = await queryPage(
    {
      KeyConditionExpression: 'PK = :pk AND begins_with(SK, :sk)',
      ExpressionAttributeValues: { ':pk': keys.systemCounters(systemId).PK, ':sk': prefixes.contact },
    },
    page,
  );
  return items.map(toContact);
}

/** Deletion, as the web interface performs it: the history item, the removal and the count together. */
export function deleteContactWrites(c: StoredContact, now: Date): WriteItem[] {
  return [
    { kind: 'delete', key: keys.contact(c.system_id, c.id), condition: versionIs(c.version), onConditionFailed: staleOrMissing },
    { kind: 'put', item: { ...keys.deletedContact(c.system_id, c.id), entity: 'deleted-contact', ...c, status: 'deleted', deleted_at: now.toISOString() } },
    addToCounter(keys.systemCounters(c.system_id), 'contacts', -1),
  ];
}
