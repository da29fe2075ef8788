import { newUlid } from '../../lib/domain/ids.js';
import { putAll } from '../../lib/store/batch.js';
import { keys } from '../../lib/store/keys.js';
import { purgeMarkerWrite } from '../../lib/store/provider-purge.js';
import { getOne, queryAll } from '../../lib/store/read.js';
import { commit } from '../../lib/store/transact.js';
import { buildAssertion } from './factories.js';

/**
 * A deleted release's leftovers as the import and review writes leave them: `count` assertions,
 * the first `confirmed` of them confirmed with their control index items, and the purge marker
 * the deleting transaction writes.
 */
export async function deletedRelease(count: number, confirmed: number) {
  const providerId = newUlid();
  const releaseId = newUlid();
  const controls = Array.from({ length: count }, (_, i) => `ism-${String(i).padStart(4, '0')}`);
  const assertions = controls.map((control, i) =>
    buildAssertion({ provider_id: providerId, release_id: releaseId, control_id: control, status: i < confirmed ? 'confirmed' : 'pending' }),
  );
  await putAll([
    ...assertions.map((a) => ({ ...keys.assertion(providerId, a.id), entity: 'assertion', ...a })),
    ...controls
      .slice(0, confirmed)
      .map((c) => ({ ...keys.controlAssertion(c, providerId, releaseId), entity: 'control-assertion', provider_id: providerId, release_id: releaseId })),
  ]);
  await commit([purgeMarkerWrite({ provider_id: providerId, release_id: releaseId }, 'fixture', new Date())]);
  const message = { provider_id: providerId, release_id: releaseId };
  const left = async () => {
    const partition = await queryAll({
      KeyConditionExpression: 'PK = :pk',
      ExpressionAttributeValues: { ':pk': keys.externalProvider(providerId).PK },
      ConsistentRead: true,
    });
    const index = await Promise.all(controls.slice(0, confirmed).map((c) => getOne(keys.controlAssertion(c, providerId, releaseId))));
    return { partition: partition.length, index: index.filter(Boolean).length };
  };
  return { message, left };
}
