import { itemAbsent, itemPresent } from './conditions.js';
import { keys, prefixes } from './keys.js';
import { getMany, getOne, keyString, queryAll, queryPage, type Item } from './read.js';
import { commit, TransactionConflictError } from './transact.js';
import { addToCounter } from './versioned.js';

/**
 * Organisation members (the document owners of the library): active users with live access in the
 * organisation, at its own scope or at a project of it. Access items live in the user's partition;
 * a member item per organisation and user, with the organisation's `members` counter moved in the
 * same transaction, makes them a Query of the organisation's partition with an exact total. Every
 * change of a user's access or status recomputes that user's member items from the access items
 * and the user record, so a disabled or deleted user leaves every list and total at once.
 */
const COUNTER = 'members';

class MembershipChanged extends Error {
  override readonly name = 'MembershipChanged';
}

/** The organisation an access item grants in: its own, or its project's (access items from before organisation_id was written name only the project). */
async function organisationsOf(access: readonly Item[]): Promise<Set<string>> {
  const found = new Set<string>();
  const projects: string[] = [];
  for (const item of access) {
    if (typeof item.organisation_id === 'string') found.add(item.organisation_id);
    else if (typeof item.project_id === 'string') projects.push(item.project_id);
  }
  if (projects.length) {
    for (const project of (await getMany(projects.map(keys.project))).values()) {
      if (typeof project.organisation_id === 'string') found.add(project.organisation_id);
    }
  }
  return found;
}

const userAccess = (userId: string) =>
  queryAll({
    KeyConditionExpression: 'PK = :pk AND begins_with(SK, :sk)',
    ExpressionAttributeValues: { ':pk': keys.user(userId).PK, ':sk': prefixes.access },
    ConsistentRead: true,
  });

/** The organisation a project-scope grant is in, for writing it on the access item. */
export async function projectOrganisation(projectId: string): Promise<string | undefined> {
  const project = await getOne(keys.project(projectId));
  return typeof project?.organisation_id === 'string' ? project.organisation_id : undefined;
}

/** Makes the user's member items what their access and status say; `formerly` adds organisations just left. */
export async function syncMemberships(userId: string, now: Date, formerly: readonly string[] = []): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await syncOnce(userId, now, formerly);
      return;
    } catch (error) {
      // A concurrent change of the same user's access moved a member item first: recompute.
      if (!(error instanceof MembershipChanged || error instanceof TransactionConflictError) || attempt >= 5) throw error;
    }
  }
}

async function syncOnce(userId: string, now: Date, formerly: readonly string[]): Promise<void> {
  const user = await getOne(keys.user(userId));
  const holding = await organisationsOf(await userAccess(userId));
  const candidates = [...new Set([...holding, ...formerly])];
  if (!candidates.length) return;
  const present = await getMany(candidates.map((org) => keys.organisationMember(org, userId)));
  const changed = () => new MembershipChanged();
  for (const org of candidates) {
    const key = keys.organisationMember(org, userId);
    const wanted = user?.status === 'active' && holding.has(org);
    const exists = present.has(keyString(key));
    if (wanted && !exists) {
      await commit([
        {
          kind: 'put',
          item: { ...key, entity: 'member', organisation_id: org, user_id: userId, since: now.toISOString() },
          condition: itemAbsent(),
          onConditionFailed: changed,
        },
        addToCounter(keys.organisationCounters(org), COUNTER, 1),
      ]);
    } else if (!wanted && exists) {
      await commit([{ kind: 'delete', key, condition: itemPresent(), onConditionFailed: changed }, addToCounter(keys.organisationCounters(org), COUNTER, -1)]);
    }
  }
}

/** The organisation's member count, from its counters item. */
export const memberCount = (counters: Item | undefined) => Number(counters?.[COUNTER] ?? 0);

/** One page of the organisation's members in user-id order, with their names from the user records. */
export async function membersPage(organisationId: string, page: { number: number; size: number }): Promise<{ id: string; name: string }[]> {
  const refs = await queryPage(
    {
      KeyConditionExpression: 'PK = :pk AND begins_with(SK, :sk)',
      ExpressionAttributeValues: { ':pk': keys.organisation(organisationId).PK, ':sk': prefixes.organisationMember },
      ProjectionExpression: 'user_id',
      ConsistentRead: true,
    },
    page,
  );
  const wanted = refs.map((r) => keys.user(String(r.user_id)));
  const users = wanted.length ? await getMany(wanted) : new Map<string, Item>();
  return wanted.flatMap((k) => {
    const user = users.get(keyString(k));
    return user ? [{ id: String(user.id), name: String(user.name) }] : [];
  });
}

/** Whether the user is an active member of the organisation now: the member item and, read with it, the user's own status. */
export async function isActiveMember(organisationId: string, userId: string): Promise<boolean> {
  const member = keys.organisationMember(organisationId, userId);
  const found = await getMany([member, keys.user(userId)]);
  return found.has(keyString(member)) && found.get(keyString(keys.user(userId)))?.status === 'active';
}
