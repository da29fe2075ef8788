import * as z from 'zod';
import { once } from '../domain/validation.js';
import { Assertion, assertionId, isConfirmed, releaseAssertionIds, type StoredAssertion } from '../domain/assertions.js';
import type { SelectedAssertion } from '../domain/provider-effects.js';
import { type Condition, itemAbsent, itemPresent, versionIs } from './conditions.js';
import { parseStored } from './entity.js';
import { keys, prefixes } from './keys.js';
import { getMany, type Item, keyString, queryAll } from './read.js';
import { commit, type WriteItem } from './transact.js';

/**
 * Assertions live in their provider's partition under their ULID (`SK=ASSERTION#<assertion>`),
 * which is derived from the release and the control (assertionId). So the key alone keeps one
 * assertion per release and control (an import's put of a new one is conditional on the item being
 * absent), `GET …/assertions/{assertion}` reads it by key in the authentication BatchGetItem, and
 * a release's assertions, whose ids share their first 18 characters, are one Query. A drawn ULID
 * would have needed a second item (or a GSI1 key, eventually consistent) to keep either the
 * uniqueness or the look-up by id. A confirmed assertion also holds a small index item in its
 * control's partition (`PK=ASSERTED#<control>`, `SK=RELEASE#<provider>#<release>`), written and
 * removed in the assertion's own writes, so that the releases asserting a control are one Query of
 * index items instead of every assertion. GSI1 stays free for the assertion's other access patterns.
 */
const assertionItem = (a: StoredAssertion) => ({ ...keys.assertion(a.provider_id, a.id), entity: 'assertion', ...a });

/** An assertion as stored under keys.assertion: what the API shows of it, and its version. */
export const assertionSchema = once(() => z.looseObject({ ...Assertion().shape, version: z.number().int() }) satisfies z.ZodType<StoredAssertion>);

export const toAssertion = (item: Item): StoredAssertion => parseStored(assertionSchema(), item);

/** What selectedAssertions projects of a confirmed assertion: what a selecting project's controls are given, and the artefact it came from. */
const selectedSchema = once(() =>
  assertionSchema()
    .pick({
      id: true,
      provider_id: true,
      release_id: true,
      control_id: true,
      responsibility: true,
      implementation_status: true,
      artefact_id: true,
    })
    .loose(),
);

/** The projection of the control index items: which release asserts the control. */
const assertingSchema = once(() => z.looseObject({ provider_id: z.string(), release_id: z.string() }));

/** The sort-key prefix of a release's assertions. */
export const releaseAssertionPrefix = (releaseId: string) => `${prefixes.assertion}${releaseAssertionIds(releaseId)}`;

/** A write's condition and the error its failure means. */
export interface Guard {
  condition: Condition;
  onConditionFailed: () => Error;
}

/** The assertion and its control index item, without the release's counts. */
function ownWrites(after: StoredAssertion, before: StoredAssertion | undefined, guard?: Guard): WriteItem[] {
  const index = keys.controlAssertion(after.control_id, after.provider_id, after.release_id);
  const writes: WriteItem[] = [{ kind: 'put', item: assertionItem(after), ...guard }];
  if (isConfirmed(after) && !isConfirmed(before)) {
    writes.push({ kind: 'put', item: { ...index, entity: 'control-assertion', provider_id: after.provider_id, release_id: after.release_id } });
  }
  if (!isConfirmed(after) && isConfirmed(before)) writes.push({ kind: 'delete', key: index });
  return writes;
}

/** The release's counts moved by added assertions and by confirmed ones gained or lost, when they move. */
function countWrites(providerId: string, releaseId: string, added: number, confirmed: number, guard?: Guard): WriteItem[] {
  if (!added && !confirmed && !guard) return [];
  return [
    {
      kind: 'update',
      key: keys.assuranceRelease(providerId, releaseId),
      update: 'ADD #a :a, #c :c',
      names: { '#a': 'assertions', '#c': 'confirmed_assertions', ...guard?.condition.names },
      values: { ':a': added, ':c': confirmed, ...guard?.condition.values },
      ...guard,
    },
  ];
}

const confirmedDelta = (after: StoredAssertion, before: StoredAssertion | undefined) => Number(isConfirmed(after)) - Number(isConfirmed(before));

/**
 * An assertion written whole, with its control index item and its release's counts moved by the
 * difference from what was stored before (undefined for a new one). A release guard always writes
 * the release (an ADD of nothing when the counts stay), so that its condition is checked.
 */
export function assertionWrites(after: StoredAssertion, before: StoredAssertion | undefined, guards: { assertion?: Guard; release?: Guard } = {}): WriteItem[] {
  return [
    ...ownWrites(after, before, guards.assertion),
    ...countWrites(after.provider_id, after.release_id, before ? 0 : 1, confirmedDelta(after, before), guards.release),
  ];
}

/**
 * Many assertions of one release with one update of its counts, guarded by `release` (the
 * import's condition on the release). Each assertion is guarded by `unchanged(before)`: a review
 * that lands between reading and writing it fails the whole batch.
 */
export function assertionBatchWrites(
  pairs: readonly { after: StoredAssertion; before: StoredAssertion | undefined }[],
  release: { provider_id: string; id: string; guard: Guard },
  unchanged: (before: StoredAssertion | undefined) => Guard,
): WriteItem[] {
  const own = pairs.flatMap(({ after, before }) => ownWrites(after, before, unchanged(before)));
  const added = pairs.filter((p) => !p.before).length;
  const confirmed = pairs.reduce((sum, p) => sum + confirmedDelta(p.after, p.before), 0);
  return [...own, ...countWrites(release.provider_id, release.id, added, confirmed, release.guard)];
}

/** Every assertion of a release, by control id. */
export async function releaseAssertions(providerId: string, releaseId: string): Promise<Map<string, StoredAssertion>> {
  const items = await queryAll(
    {
      KeyConditionExpression: 'PK = :pk AND begins_with(SK, :sk)',
      ExpressionAttributeValues: { ':pk': keys.externalProvider(providerId).PK, ':sk': releaseAssertionPrefix(releaseId) },
      ConsistentRead: true,
    },
    20_000,
  );
  return new Map(items.map(toAssertion).map((a) => [a.control_id, a]));
}

/** The releases with a confirmed assertion about this control (any status of release, any provider). */
export async function releasesAsserting(controlId: string): Promise<{ provider_id: string; release_id: string }[]> {
  const items = await queryAll({
    KeyConditionExpression: 'PK = :pk',
    ExpressionAttributeValues: { ':pk': keys.controlAssertion(controlId, '', '').PK },
    ProjectionExpression: 'PK, SK, provider_id, release_id',
    ConsistentRead: true,
  });
  return items.map((i) => {
    const { provider_id, release_id } = parseStored(assertingSchema(), i);
    return { provider_id, release_id };
  });
}

/** The confirmed assertions of a release, with the attributes named (keys included): one Query. */
export const confirmedAssertionItems = (providerId: string, releaseId: string, attributes: readonly string[]): Promise<Item[]> =>
  queryAll(
    {
      KeyConditionExpression: 'PK = :pk AND begins_with(SK, :sk)',
      FilterExpression: '#s = :confirmed',
      ExpressionAttributeNames: { '#s': 'status' },
      ExpressionAttributeValues: { ':pk': keys.externalProvider(providerId).PK, ':sk': releaseAssertionPrefix(releaseId), ':confirmed': 'confirmed' },
      ProjectionExpression: ['PK', 'SK', ...attributes].join(', '),
    },
    20_000,
  );

/**
 * The confirmed assertions of the given releases, in selection order, each with whether its
 * artefact is restricted: one Query per release and one BatchGetItem of the artefacts.
 */
export async function selectedAssertions(selections: readonly { provider_id: string; release_id: string }[]): Promise<SelectedAssertion[]> {
  const attributes = ['id', 'provider_id', 'release_id', 'control_id', 'responsibility', 'implementation_status', 'artefact_id'];
  const perRelease = await Promise.all(selections.map((s) => confirmedAssertionItems(s.provider_id, s.release_id, attributes)));
  const confirmed = perRelease.flat().map((item) => parseStored(selectedSchema(), item));
  const found = await getMany(confirmed.map((a) => keys.providerArtefact(a.provider_id, a.artefact_id)));
  return confirmed.map(({ artefact_id, ...a }) => ({
    ...a,
    // An artefact gone is no evidence that its material was open: treat it as restricted.
    restricted: found.get(keyString(keys.providerArtefact(a.provider_id, artefact_id)))?.restricted !== false,
  }));
}

class Gone extends Error {
  override readonly name = 'Gone';
}
class Superseded extends Error {
  override readonly name = 'Superseded';
  constructor(readonly current: StoredAssertion) {
    super('an assertion is stored under the ULID already');
  }
}

/** Whether the writes committed; false when an item they need is gone. */
async function committed(writes: WriteItem[]): Promise<boolean> {
  try {
    await commit(writes);
    return true;
  } catch (error) {
    if (error instanceof Gone) return false;
    throw error;
  }
}

/**
 * An assertion stored before assertions had ULIDs (`SK=ASSERTION#<release>#<control>`), moved to
 * the key of its ULID: the put conditional on nothing being there, the delete on the old item
 * still being there (else a second runner moved it). Its control index item names the release,
 * not the assertion, and stays. When an import since the deploy has written the control under its
 * ULID already (counting it as a new assertion), the old one is dropped and uncounted, and so is its
 * index item unless the new one is confirmed (checked at the version read).
 */
export async function moveLegacyAssertion(item: Item): Promise<'moved' | 'superseded' | 'gone'> {
  const old = toAssertion(item);
  const id = assertionId(old.release_id, old.control_id);
  const drop: WriteItem = { kind: 'delete', key: { PK: item.PK, SK: item.SK }, condition: itemPresent(), onConditionFailed: () => new Gone() };
  let current: StoredAssertion;
  try {
    const put: WriteItem = {
      kind: 'put',
      item: assertionItem({ ...old, id }),
      condition: itemAbsent(),
      onConditionFailed: (c) => new Superseded(toAssertion({ ...keys.assertion(old.provider_id, id), ...c })),
    };
    return (await committed([put, drop])) ? 'moved' : 'gone';
  } catch (error) {
    if (!(error instanceof Superseded)) throw error;
    current = error.current;
  }
  const index: WriteItem[] =
    isConfirmed(old) && !isConfirmed(current) ? [{ kind: 'delete', key: keys.controlAssertion(old.control_id, old.provider_id, old.release_id) }] : [];
  const unchanged: WriteItem = { kind: 'check', key: keys.assertion(old.provider_id, id), condition: versionIs(current.version) };
  const uncount = countWrites(old.provider_id, old.release_id, -1, -Number(isConfirmed(old)), {
    condition: itemPresent(),
    onConditionFailed: () => new Gone(),
  });
  if (await committed([drop, ...uncount, ...index, unchanged])) return 'superseded';
  // The release is gone too (its purge takes the new assertion): nothing left to count.
  return (await committed([drop, ...index])) ? 'superseded' : 'gone';
}
