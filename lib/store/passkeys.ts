import * as z from 'zod';
import { and, attributeEquals, itemAbsent, itemPresent, presentAtLeast, presentBelow } from './conditions.js';
import { parseFound, parseStored, storedSchema } from './entity.js';
import { keys, prefixes } from './keys.js';
import { getOne, queryAll, type Item } from './read.js';
import { commit, type WriteItem } from './transact.js';
import { updateIf } from './update.js';
import { once } from '../domain/validation.js';

/**
 * A user's WebAuthn credentials. The credential id and public key are what the relying party keeps
 * (W3C WebAuthn, section 7.1 step 27); `id` is a ULID of our own, so that pages, forms and audit
 * events name a passkey without carrying credential id material.
 */
export interface PasskeyRecord {
  id: string;
  user_id: string;
  credential_id: string;
  public_key: string;
  counter: number;
  transports: string[];
  name: string;
  created_at: string;
  last_used_at?: string;
  backed_up: boolean;
}

/** A passkey as stored under keys.passkey, in its user's partition. */
export const passkeySchema = once(() =>
  storedSchema<PasskeyRecord>()(
    z.looseObject({
      id: z.string(),
      user_id: z.string(),
      credential_id: z.string(),
      public_key: z.string(),
      counter: z.number(),
      transports: z.array(z.string()),
      name: z.string(),
      created_at: z.string(),
      last_used_at: z.string().optional(),
      backed_up: z.boolean(),
    }),
  ),
);

const toPasskey = (item: Item): PasskeyRecord => parseStored(passkeySchema(), item);

export class PasskeyRefusedError extends Error {
  override readonly name = 'PasskeyRefusedError';
}

const PASSKEY_COUNT = 'passkeys';

const passkeyItem = (p: PasskeyRecord) => ({ ...keys.passkey(p.user_id, p.credential_id), entity: 'passkey', ...p });

/** The writes that register a passkey: the item (a credential id registered twice is refused) and the user's count. */
export function addPasskeyWrites(passkey: PasskeyRecord, userStatus: string): WriteItem[] {
  return [
    {
      kind: 'put',
      item: passkeyItem(passkey),
      condition: itemAbsent(),
      onConditionFailed: () => new PasskeyRefusedError('this passkey is already registered'),
    },
    {
      kind: 'update',
      key: keys.user(passkey.user_id),
      update: 'ADD #n :one',
      names: { '#n': PASSKEY_COUNT },
      values: { ':one': 1 },
      condition: and(itemPresent(), attributeEquals('status', userStatus)),
      onConditionFailed: () => new PasskeyRefusedError('the user changed meanwhile'),
    },
  ];
}

export async function listPasskeys(userId: string): Promise<PasskeyRecord[]> {
  const items = await queryAll({
    KeyConditionExpression: 'PK = :pk AND begins_with(SK, :sk)',
    ExpressionAttributeValues: { ':pk': keys.user(userId).PK, ':sk': prefixes.passkey },
    ConsistentRead: true,
  });
  return items.map(toPasskey);
}

export async function getPasskey(userId: string, credentialId: string): Promise<PasskeyRecord | undefined> {
  return parseFound(passkeySchema(), await getOne(keys.passkey(userId, credentialId)));
}

/**
 * The signature counter moves forward only (WebAuthn section 7.2 step 22): a write that finds a
 * counter at or past this one lost a race with another assertion of the same authenticator.
 */
export async function recordPasskeyUse(passkey: PasskeyRecord, counter: number, now: Date): Promise<boolean> {
  const key = keys.passkey(passkey.user_id, passkey.credential_id);
  const moved = counter === 0 ? itemPresent() : and(itemPresent(), presentBelow('counter', counter));
  return updateIf(key, { counter, last_used_at: now.toISOString() }, moved);
}

/** Removes one passkey while another remains: the user's count must stay at one or more. */
export async function removePasskey(passkey: PasskeyRecord): Promise<void> {
  await commit([
    {
      kind: 'delete',
      key: keys.passkey(passkey.user_id, passkey.credential_id),
      condition: itemPresent(),
      onConditionFailed: () => new PasskeyRefusedError('the passkey was removed already'),
    },
    {
      kind: 'update',
      key: keys.user(passkey.user_id),
      update: 'ADD #n :minus',
      names: { '#n': PASSKEY_COUNT },
      values: { ':minus': -1 },
      condition: presentAtLeast(PASSKEY_COUNT, 2),
      onConditionFailed: () => new PasskeyRefusedError('the last passkey cannot be removed: register another one first'),
    },
  ]);
}

/** Every passkey of the user goes, for a recovery: a lost authenticator must not sign in again. */
export async function removeAllPasskeys(userId: string): Promise<number> {
  const all = await listPasskeys(userId);
  for (let i = 0; i < all.length; i += 90) {
    const batch = all.slice(i, i + 90);
    await commit([
      ...batch.map((p): WriteItem => ({ kind: 'delete', key: keys.passkey(userId, p.credential_id) })),
      { kind: 'update', key: keys.user(userId), update: 'ADD #n :minus', names: { '#n': PASSKEY_COUNT }, values: { ':minus': -batch.length } },
    ]);
  }
  return all.length;
}
