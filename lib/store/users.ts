import * as z from 'zod';
import { once } from '../domain/validation.js';
import { parseFound, parseStored, storedSchema } from './entity.js';
import { keys, prefixes } from './keys.js';
import { queryAll, type Item } from './read.js';

/**
 * Users and their access as stored: what identity.ts manages and members.ts derives organisation
 * members from. Apart from both, since identity.ts commits its grants through members.ts.
 */

export type UserStatus = 'active' | 'disabled' | 'deleted';

export interface UserRecord {
  id: string;
  email: string;
  name: string;
  status: UserStatus;
  super_user: boolean;
  created_at: string;
  /** Moved by a re-enrolment: console sessions started under an earlier epoch are over. */
  session_epoch?: number;
  /** Registered passkeys, kept with each registration and removal so the last one cannot be removed. */
  passkeys?: number;
  /** Moved by every grant, so that a membership sync's writes can require the access items it read to be the latest (members.ts). */
  access_version?: number;
}

/**
 * A user as stored under keys.user, and as the users index projects it. Built at its first use, as
 * the token's schema: the pipeline of every function imports this module.
 */
const users = once(() =>
  storedSchema<UserRecord>()(
    z.looseObject({
      id: z.string(),
      email: z.string(),
      name: z.string(),
      status: z.enum(['active', 'disabled', 'deleted']),
      super_user: z.boolean(),
      created_at: z.string(),
      session_epoch: z.number().optional(),
      passkeys: z.number().optional(),
      access_version: z.number().optional(),
    }),
  ),
);

export const toUser = (item: Item): UserRecord => parseStored(users(), item);
export const asUser = (item: Item | undefined): UserRecord | undefined => parseFound(users(), item);

export type AccessScope = { kind: 'installation' } | { kind: 'organisation'; id: string } | { kind: 'project'; id: string };

/** Where a grant applies, as queued work records it (a recalculation marker's authority). */
export const accessScopeSchema = once(() =>
  z.discriminatedUnion('kind', [
    z.object({ kind: z.literal('installation') }),
    z.object({ kind: z.literal('organisation'), id: z.string() }),
    z.object({ kind: z.literal('project'), id: z.string() }),
  ]),
);

/**
 * A user's permissions at one scope, as stored under accessKey: organisation_id is the organisation
 * the grant makes the user a member of (a project's, when the project was found at the grant).
 */
const accessRecords = once(() => {
  const held = { user_id: z.string(), permissions: z.array(z.string()), granted_at: z.string() };
  return z.discriminatedUnion('scope', [
    z.looseObject({ ...held, scope: z.literal('installation') }),
    z.looseObject({ ...held, scope: z.literal('organisation'), organisation_id: z.string() }),
    z.looseObject({ ...held, scope: z.literal('project'), project_id: z.string(), organisation_id: z.string().optional() }),
  ]);
});
export type AccessRecord = z.output<ReturnType<typeof accessRecords>>;

export const toAccess = (item: Item): AccessRecord => parseStored(accessRecords(), item);
export const asAccess = (item: Item | undefined): AccessRecord | undefined => parseFound(accessRecords(), item);

/** The scope an access record grants at. */
export const accessScopeOf = (a: AccessRecord): AccessScope =>
  a.scope === 'installation'
    ? { kind: 'installation' }
    : a.scope === 'organisation'
      ? { kind: 'organisation', id: a.organisation_id }
      : { kind: 'project', id: a.project_id };

/** The user's access at every scope, read together with the user's own partition. */
export async function userAccess(userId: string): Promise<AccessRecord[]> {
  const items = await queryAll({
    KeyConditionExpression: 'PK = :pk AND begins_with(SK, :sk)',
    ExpressionAttributeValues: { ':pk': keys.user(userId).PK, ':sk': prefixes.access },
    ConsistentRead: true,
  });
  return items.map(toAccess);
}
