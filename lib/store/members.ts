import * as z from 'zod';
import { once } from '../domain/validation.js';
import { attributeEquals, itemAbsent, itemPresent, memberEquals } from './conditions.js';
import { collectionCount } from './counters.js';
import { parseStored } from './entity.js';
import { keys, prefixes } from './keys.js';
import { toProject } from './projects.js';
import { getMany, getOne, keyString, queryAll, queryPage, type Item } from './read.js';
import { type Backoff, retryUntil } from './retry.js';
import { commit, TransactionConflictError, type WriteItem } from './transact.js';
import { type AccessRecord, asUser, userAccess } from './users.js';
import { addToCounter } from './versioned.js';

/**
 * Organisation members (the document owners of the library): active users with live access in the
 * organisation, at its own scope or at a project of it. Access items live in the user's partition;
 * a member item per organisation and user, with the organisation's `members` counter moved in the
 * same transaction, makes them a Query of the organisation's partition with an exact total. Every
 * change of a user's access or status recomputes that user's member items from the access items
 * and the user record, so a disabled or deleted user leaves every list and total at once.
 */
const COUNTER = 'members' as const;
/** On the user record (UserRecord.access_version): moved by every grant. */
const ACCESS_VERSION = 'access_version';

class MembershipChanged extends Error {
  override readonly name = 'MembershipChanged';
}

/** The organisation an access item grants in: its own, or its project's (access items from before organisation_id was written name only the project). */
async function organisationsOf(access: readonly AccessRecord[]): Promise<Set<string>> {
  const found = new Set<string>();
  const projects: string[] = [];
  for (const item of access) {
    if (item.scope === 'organisation') found.add(item.organisation_id);
    else if (item.scope === 'project') {
      if (item.organisation_id !== undefined) found.add(item.organisation_id);
      else projects.push(item.project_id);
    }
  }
  if (projects.length) {
    for (const project of (await getMany(projects.map(keys.project))).values()) found.add(toProject(project).organisation_id);
  }
  return found;
}

/** The organisation a project-scope grant is in, for writing it on the access item. */
export async function projectOrganisation(projectId: string): Promise<string | undefined> {
  const project = await getOne(keys.project(projectId));
  return project ? toProject(project).organisation_id : undefined;
}

const MEMBERSHIP_RACES: Backoff = { attempts: 5, baseMs: 10, capMs: 100 };

/** Runs `attempt` again, from fresh reads, when a concurrent change of the same member item or user won the race. */
async function retried(attempt: () => Promise<void>): Promise<void> {
  let lost: Error | undefined;
  await retryUntil(
    MEMBERSHIP_RACES,
    async () => {
      try {
        await attempt();
        return true;
      } catch (error) {
        if (!(error instanceof MembershipChanged || error instanceof TransactionConflictError)) throw error;
        lost = error;
        return false;
      }
    },
    () => lost!,
  );
}

/** Makes the user's member items what their access and status say; `formerly` adds organisations just left. */
export async function syncMemberships(userId: string, now: Date, formerly: readonly string[] = []): Promise<void> {
  await retried(() => syncOnce(userId, now, formerly));
}

const memberItem = (organisationId: string, userId: string, now: Date) => ({
  ...keys.organisationMember(organisationId, userId),
  entity: 'member',
  organisation_id: organisationId,
  user_id: userId,
  since: now.toISOString(),
});

/**
 * Commits `grant` (an access item in the organisation or one of its projects) in one transaction
 * with what it makes true: an active user's member item and the organisation's counter. The user's
 * status is checked in the same transaction, so that a disable landing meanwhile cannot leave a
 * disabled member behind; a member item already there is checked present for the same reason. The
 * user's access version moves, so that a membership sync that read the access items before this
 * grant cannot remove the member item it relies on.
 */
export async function commitGrant(grant: WriteItem, userId: string, organisationId: string, now: Date): Promise<void> {
  await retried(async () => {
    const member = keys.organisationMember(organisationId, userId);
    const found = await getMany([member, keys.user(userId)]);
    const user = asUser(found.get(keyString(keys.user(userId))));
    const changed = () => new MembershipChanged();
    const writes: WriteItem[] = [grant];
    if (user) {
      writes.push({
        kind: 'update',
        key: keys.user(userId),
        update: 'ADD #av :one',
        names: { '#av': ACCESS_VERSION },
        values: { ':one': 1 },
        condition: attributeEquals('status', user.status),
        onConditionFailed: changed,
      });
    }
    if (user?.status === 'active') {
      writes.push(
        ...(found.has(keyString(member))
          ? [{ kind: 'check', key: member, condition: itemPresent(), onConditionFailed: changed } as const]
          : [
              { kind: 'put', item: memberItem(organisationId, userId, now), condition: itemAbsent(), onConditionFailed: changed } as const,
              addToCounter(keys.organisationCounters(organisationId), COUNTER, 1),
            ]),
      );
    }
    await commit(writes);
  });
}

/**
 * Sets the organisation's member counter to the number of its member items, conditional on the
 * counter read before counting: a grant or revoke landing meanwhile moves it, and the count starts
 * over. The write happens even when the numbers agree, since only its condition shows that no
 * grant moved both between the two reads. Returns whether the counter was wrong.
 */
export async function recountMembers(organisationId: string): Promise<boolean> {
  let wrong = false;
  await retried(async () => {
    const counted = memberCount(await getOne(keys.organisationCounters(organisationId)));
    const items = await queryAll({
      KeyConditionExpression: 'PK = :pk AND begins_with(SK, :sk)',
      ExpressionAttributeValues: { ':pk': keys.organisation(organisationId).PK, ':sk': prefixes.organisationMember },
      ProjectionExpression: 'SK',
      ConsistentRead: true,
    });
    await commit([
      {
        kind: 'update',
        key: keys.organisationCounters(organisationId),
        update: 'SET #n = :n',
        names: { '#n': COUNTER },
        values: { ':n': items.length },
        condition: memberEquals([COUNTER], counted, counted === 0),
        onConditionFailed: () => new MembershipChanged(),
      },
    ]);
    wrong = items.length !== counted;
  });
  return wrong;
}

async function syncOnce(userId: string, now: Date, formerly: readonly string[]): Promise<void> {
  const user = asUser(await getOne(keys.user(userId)));
  const holding = await organisationsOf(await userAccess(userId));
  const candidates = [...new Set([...holding, ...formerly])];
  if (!candidates.length) return;
  const present = await getMany(candidates.map((org) => keys.organisationMember(org, userId)));
  const changed = () => new MembershipChanged();
  const version = user?.access_version;
  const accessAsRead: WriteItem = {
    kind: 'check',
    key: keys.user(userId),
    condition: memberEquals([ACCESS_VERSION], version ?? 0, version === undefined),
    onConditionFailed: changed,
  };
  for (const org of candidates) {
    const key = keys.organisationMember(org, userId);
    const wanted = user?.status === 'active' && holding.has(org);
    const exists = present.has(keyString(key));
    if (wanted && !exists) {
      await commit([
        { kind: 'put', item: memberItem(org, userId, now), condition: itemAbsent(), onConditionFailed: changed },
        addToCounter(keys.organisationCounters(org), COUNTER, 1),
        accessAsRead,
      ]);
    } else if (!wanted && exists) {
      await commit([
        { kind: 'delete', key, condition: itemPresent(), onConditionFailed: changed },
        addToCounter(keys.organisationCounters(org), COUNTER, -1),
        accessAsRead,
      ]);
    }
  }
}

/** The organisation's member count, from its counters item. */
export const memberCount = (counters: Item | undefined): number => collectionCount(counters, COUNTER);

/** A member item as its page's projection reads it: the user it names. */
const memberRefSchema = once(() => z.looseObject({ user_id: z.string() }));

/** One page of the organisation's members in user-id order, with their names from the user records. */
export async function membersPage(organisationId: string, page: { number: number; size: number }): Promise<{ id: string; name: string }[]> {
  const refs = await queryPage(
    {
      KeyConditionExpression: 'PK = :pk AND begins_with(SK, :sk)',
      ExpressionAttributeValues: { ':pk': keys.organisation(organisationId).PK, ':sk': prefixes.organisationMember },
      // With the member item's key, so that one without its user is refused by name.
      ProjectionExpression: 'PK, SK, user_id',
      ConsistentRead: true,
    },
    page,
  );
  const wanted = refs.map((r) => keys.user(parseStored(memberRefSchema(), r).user_id));
  const users = wanted.length ? await getMany(wanted) : new Map<string, Item>();
  return wanted.flatMap((k) => {
    const user = asUser(users.get(keyString(k)));
    return user ? [{ id: user.id, name: user.name }] : [];
  });
}

/** Whether the user is an active member of the organisation now: the member item and, read with it, the user's own status. */
export async function isActiveMember(organisationId: string, userId: string): Promise<boolean> {
  const member = keys.organisationMember(organisationId, userId);
  const found = await getMany([member, keys.user(userId)]);
  return found.has(keyString(member)) && asUser(found.get(keyString(keys.user(userId))))?.status === 'active';
}
