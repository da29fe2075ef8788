import { newUlid } from '../domain/ids.js';
import { DeleteCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod';
import { once } from '../domain/validation.js';
import { CREDENTIAL_TYPES, type ConsolePermission, type CredentialType, type Permission } from '../domain/permissions.js';
import { ddb, tableName } from './client.js';
import { absentOrBefore, and, attributeEquals, conditionFields, itemAbsent, itemPresent } from './conditions.js';
import { parseFound, parseStored, storedSchema } from './entity.js';
import { gsi1, keys, type Key } from './keys.js';
import { commitGrant, projectOrganisation, syncMemberships } from './members.js';
import { getOne, queryAll, type Item } from './read.js';
import { commit } from './transact.js';
import { updateIf } from './update.js';
import { type AccessScope, asAccess, asUser, toUser, type UserRecord, type UserStatus } from './users.js';

export {
  type AccessRecord,
  type AccessScope,
  accessScopeOf,
  accessScopeSchema,
  asAccess,
  asUser,
  toAccess,
  toUser,
  type UserRecord,
  type UserStatus,
  userAccess,
} from './users.js';

/** Users, their access and their tokens: managed by the operator CLI, read by the pipeline. */

/**
 * A token as stored. Credentials issued before the seed's modes and grants may lack a stored mode or
 * hold retired ability names: they are tokens all the same, which authentication refuses as ones to
 * be reissued (storedCredentialValid), so the schema reads them rather than calling them broken.
 */
export interface StoredToken {
  id: string;
  user_id: string;
  type: CredentialType;
  organisation_id?: string;
  project_id?: string;
  name: string;
  abilities: string[];
  read_only?: boolean;
  expires_at: string;
  created_at: string;
  secret_hash: string;
  /** Approximate: written at most once per LAST_USED_PRECISION_MS, so that use costs no write on the hot path. */
  last_used_at?: string;
}

/** A token as issued today: a mode and current grants. */
export interface TokenRecord extends StoredToken {
  abilities: Permission[];
  read_only: boolean;
}

const tokens = once(() =>
  storedSchema<StoredToken>()(
    z.looseObject({
      id: z.string(),
      user_id: z.string(),
      type: z.enum(CREDENTIAL_TYPES),
      organisation_id: z.string().optional(),
      project_id: z.string().optional(),
      name: z.string(),
      abilities: z.array(z.string()),
      read_only: z.boolean().optional(),
      expires_at: z.string(),
      created_at: z.string(),
      secret_hash: z.string(),
      last_used_at: z.string().optional(),
    }),
  ),
);

export const toToken = (item: Item): StoredToken => parseStored(tokens(), item);

const secretHashes = once(() => tokens().pick({ secret_hash: true }));

/**
 * Whether a presented credential proves the stored token: `matches` compares it with the stored
 * keyed hash. Only the hash is read here, and a token item without a readable one proves nothing,
 * so that a credential that matches no token is a 401 whatever state the item is in; the whole
 * token is parsed (a broken one refused with its key) only for the credential that proves it.
 */
export function credentialProves(item: Item | undefined, matches: (secretHash: string) => boolean): boolean {
  const stored = item && secretHashes().safeParse(item);
  return stored?.success === true && matches(stored.data.secret_hash);
}

export class EmailTakenError extends Error {
  override readonly name = 'EmailTakenError';
}

export async function createUser(input: { email: string; name: string; superUser: boolean }, now: Date): Promise<UserRecord> {
  const user: UserRecord = {
    id: newUlid(now.getTime()),
    email: input.email.toLowerCase(),
    name: input.name,
    status: 'active',
    super_user: input.superUser,
    created_at: now.toISOString(),
  };
  await commit([
    { kind: 'put', item: { ...keys.user(user.id), ...usersIndex(user.email), entity: 'user', ...user }, condition: itemAbsent() },
    {
      kind: 'put',
      item: { ...keys.userEmail(user.email), entity: 'user-email', user_id: user.id },
      condition: itemAbsent(),
      onConditionFailed: () => new EmailTakenError(`a user with email ${user.email} exists`),
    },
  ]);
  return user;
}

/** The console's list of users is a Query of this index partition, in email order. */
export const usersIndex = (email: string) => ({ GSI1PK: gsi1.users, GSI1SK: email.toLowerCase() });

export async function listUsers(): Promise<UserRecord[]> {
  const items = await queryAll({
    IndexName: 'GSI1',
    KeyConditionExpression: 'GSI1PK = :pk',
    ExpressionAttributeValues: { ':pk': gsi1.users },
  });
  return items.map(toUser);
}

export async function getUser(userId: string): Promise<UserRecord | undefined> {
  return asUser(await getOne(keys.user(userId)));
}

/** A status other than active takes the user out of every organisation's members (document owners) at once. */
export async function setUserStatus(userId: string, status: UserStatus, now = new Date()): Promise<boolean> {
  if (!(await updateIf(keys.user(userId), { status }, itemPresent()))) return false;
  await syncMemberships(userId, now);
  return true;
}

export function accessKey(userId: string, scope: AccessScope): Key {
  if (scope.kind === 'installation') return keys.installationAccess(userId);
  return scope.kind === 'organisation' ? keys.organisationAccess(userId, scope.id) : keys.projectAccess(userId, scope.id);
}

/**
 * Replaces the actor's permissions at that scope: the next request sees the new set. Access at an
 * organisation or one of its projects makes an active user a member of that organisation, in the
 * same transaction as the access item.
 */
export async function grantAccess(userId: string, scope: AccessScope, permissions: readonly (Permission | ConsolePermission)[], now: Date): Promise<void> {
  const organisationId = scope.kind === 'organisation' ? scope.id : scope.kind === 'project' ? await projectOrganisation(scope.id) : undefined;
  const item = {
    ...accessKey(userId, scope),
    entity: 'access',
    user_id: userId,
    scope: scope.kind,
    ...(organisationId ? { organisation_id: organisationId } : {}),
    ...(scope.kind === 'project' ? { project_id: scope.id } : {}),
    permissions,
    granted_at: now.toISOString(),
  };
  if (organisationId) await commitGrant({ kind: 'put', item }, userId, organisationId, now);
  else await ddb().send(new PutCommand({ TableName: tableName(), Item: item }));
}

export async function revokeAccess(userId: string, scope: AccessScope, now = new Date()): Promise<boolean> {
  const out = await ddb().send(new DeleteCommand({ TableName: tableName(), Key: accessKey(userId, scope), ReturnValues: 'ALL_OLD' }));
  if (!out.Attributes) return false;
  const left =
    typeof out.Attributes.organisation_id === 'string'
      ? out.Attributes.organisation_id
      : scope.kind === 'project'
        ? await projectOrganisation(scope.id)
        : undefined;
  if (left) await syncMemberships(userId, now, [left]);
  return true;
}

export async function livePermissions(userId: string, scope: AccessScope): Promise<Set<string> | undefined> {
  const access = asAccess(await getOne(accessKey(userId, scope)));
  return access ? new Set(access.permissions) : undefined;
}

export async function putToken(token: TokenRecord): Promise<void> {
  await ddb().send(
    new PutCommand({
      TableName: tableName(),
      Item: { ...keys.token(token.id), GSI1PK: gsi1.userTokens(token.user_id), GSI1SK: token.id, entity: 'token', ...token },
      ...conditionFields(itemAbsent()),
    }),
  );
}

/** Seed, Authentication part 9: only the named token is deleted; whether there was one. A token is deleted whatever its stored state. */
export async function deleteToken(tokenId: string): Promise<boolean> {
  const out = await ddb().send(new DeleteCommand({ TableName: tableName(), Key: keys.token(tokenId), ReturnValues: 'ALL_OLD' }));
  return out.Attributes !== undefined;
}

/** A token by its id, parsed; undefined when there is none. */
export async function getToken(tokenId: string): Promise<StoredToken | undefined> {
  return asToken(await getOne(keys.token(tokenId)));
}

/** Every token of a user, newest first: all pages, since the console lists them whole. */
export async function userTokens(userId: string): Promise<StoredToken[]> {
  const items = await queryAll({
    IndexName: 'GSI1',
    KeyConditionExpression: 'GSI1PK = :pk',
    ExpressionAttributeValues: { ':pk': gsi1.userTokens(userId) },
    ScanIndexForward: false,
  });
  return items.map(toToken);
}

/** A token's last use is shown as GitHub shows it: to the hour, not to the request. */
export const LAST_USED_PRECISION_MS = 60 * 60_000;

/**
 * Writes the token's last use when the stored one is older than the precision (or absent); a
 * concurrent request that already wrote it, or a token deleted meanwhile, makes this a no-op.
 */
export async function recordTokenUse(tokenId: string, now: Date): Promise<void> {
  const stale = new Date(now.getTime() - LAST_USED_PRECISION_MS).toISOString();
  await updateIf(keys.token(tokenId), { last_used_at: now.toISOString() }, and(itemPresent(), absentOrBefore('last_used_at', stale)));
}

/** Whether a use at `now` should be written: the pipeline asks before issuing any write. */
export const tokenUseIsStale = (token: Pick<StoredToken, 'last_used_at'>, now: Date) =>
  !token.last_used_at || Date.parse(token.last_used_at) <= now.getTime() - LAST_USED_PRECISION_MS;

/**
 * Ends every console session of the user (they carry the epoch they began in), for a re-enrolment;
 * conditional on the status read, so that it cannot revive a user disabled meanwhile.
 */
export async function advanceSessionEpoch(user: UserRecord): Promise<void> {
  const condition = and(itemPresent(), attributeEquals('status', user.status));
  await ddb().send(
    new UpdateCommand({
      TableName: tableName(),
      Key: keys.user(user.id),
      UpdateExpression: 'ADD #e :one',
      ...conditionFields(condition),
      ExpressionAttributeNames: { '#e': 'session_epoch', ...condition.names },
      ExpressionAttributeValues: { ':one': 1, ...condition.values },
    }),
  );
}

export const asToken = (item: Item | undefined): StoredToken | undefined => parseFound(tokens(), item);
