import { isConfirmed, type StoredAssertion } from '../domain/assertions.js';
import { keys } from './keys.js';
import { queryAll } from './read.js';
import type { WriteItem } from './transact.js';

/**
 * Assertions live in their provider's partition, one per release and control
 * (`SK=ASSERTION#<release>#<control>`), so a release's assertions are one Query. A confirmed
 * assertion also holds a small index item in its control's partition (`PK=ASSERTED#<control>`,
 * `SK=RELEASE#<provider>#<release>`), written and removed in the assertion's own writes, so that
 * the releases asserting a control are one Query of index items instead of every assertion.
 * GSI1 stays free for the assertion's other access patterns.
 */
const assertionItem = (a: StoredAssertion) => ({ ...keys.assertion(a.provider_id, a.release_id, a.control_id), entity: 'assertion', ...a });

/**
 * An assertion written whole, with its control index item and its release's counts moved by the
 * difference from what was stored before (undefined for a new one).
 */
export function assertionWrites(after: StoredAssertion, before: StoredAssertion | undefined): WriteItem[] {
  const index = keys.controlAssertion(after.control_id, after.provider_id, after.release_id);
  const writes: WriteItem[] = [{ kind: 'put', item: assertionItem(after) }];
  if (isConfirmed(after) && !isConfirmed(before)) {
    writes.push({ kind: 'put', item: { ...index, entity: 'control-assertion', provider_id: after.provider_id, release_id: after.release_id } });
  }
  if (!isConfirmed(after) && isConfirmed(before)) writes.push({ kind: 'delete', key: index });
  const confirmed = Number(isConfirmed(after)) - Number(isConfirmed(before));
  const added = before ? 0 : 1;
  if (confirmed || added) {
    writes.push({
      kind: 'update',
      key: keys.assuranceRelease(after.provider_id, after.release_id),
      update: 'ADD #a :a, #c :c',
      names: { '#a': 'assertions', '#c': 'confirmed_assertions' },
      values: { ':a': added, ':c': confirmed },
    });
  }
  return writes;
}

/** The releases with a confirmed assertion about this control (any status of release, any provider). */
export async function releasesAsserting(controlId: string): Promise<{ provider_id: string; release_id: string }[]> {
  const items = await queryAll({
    KeyConditionExpression: 'PK = :pk',
    ExpressionAttributeValues: { ':pk': keys.controlAssertion(controlId, '', '').PK },
    ProjectionExpression: 'provider_id, release_id',
    ConsistentRead: true,
  });
  return items.map((i) => ({ provider_id: String(i.provider_id), release_id: String(i.release_id) }));
}
