import { beforeAll, describe, expect, it, vi } from 'vitest';
import { ulid } from 'ulid';
import { assertionId, type StoredAssertion } from '../../lib/domain/assertions.js';
import { purgeProviderData } from '../../lib/jobs/provider-purge.js';
import { deleteAll, putAll } from '../../lib/store/batch.js';
import { traceDdb } from '../../lib/store/client.js';
import { keys } from '../../lib/store/keys.js';
import { purgeMarkerWrite } from '../../lib/store/provider-purge.js';
import { getOne, queryAll } from '../../lib/store/read.js';
import { commit } from '../../lib/store/transact.js';
import { assertionContent } from '../support/providers.js';
import { useTestServices } from '../support/services.js';

vi.mock('../../lib/store/batch.js', async (importOriginal) => {
  const original = await importOriginal<typeof import('../../lib/store/batch.js')>();
  return { ...original, deleteAll: vi.fn(original.deleteAll) };
});

beforeAll(async () => {
  await useTestServices();
});

/**
 * A deleted release's leftovers as the import and review writes leave them: `count` assertions,
 * the first `confirmed` of them confirmed with their control index items, and the purge marker
 * the deleting transaction writes.
 */
async function deletedRelease(count: number, confirmed: number) {
  const providerId = ulid();
  const releaseId = ulid();
  const controls = Array.from({ length: count }, (_, i) => `ism-${String(i).padStart(4, '0')}`);
  const assertions = controls.map(
    (control, i): StoredAssertion => ({
      ...assertionContent(),
      id: assertionId(releaseId, control),
      provider_id: providerId,
      release_id: releaseId,
      control_id: control,
      status: i < confirmed ? 'confirmed' : 'pending',
      version: 1,
      reviewed_by: null,
      reviewed_at: null,
    }),
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

function counts(calls: { command: string }[]): Record<string, number> {
  const byCommand: Record<string, number> = {};
  for (const c of calls) byCommand[c.command] = (byCommand[c.command] ?? 0) + 1;
  return byCommand;
}

describe('the purge job', () => {
  it('deletes a release\u2019s 1,000 assertions and the index items of its confirmed ones in batches of 25, and its marker last', async () => {
    const { message, left } = await deletedRelease(1000, 300);
    const { calls } = await traceDdb(() => purgeProviderData(message));
    expect(await left()).toEqual({ partition: 0, index: 0 });
    // One marker read, two Queries of the partition (assertions, import runs), 40 + 12 batches, one marker delete.
    expect(counts(calls)).toEqual({ GetItem: 1, Query: 2, BatchWriteItem: 52, DeleteItem: 1 });
  }, 60_000);

  it('does nothing on a redelivery once it has finished', async () => {
    const { message } = await deletedRelease(3, 1);
    await purgeProviderData(message);
    const { calls } = await traceDdb(() => purgeProviderData(message));
    expect(counts(calls)).toEqual({ GetItem: 1 });
  });

  it('deletes what is left on a redelivery after a delivery that failed part way, index items first', async () => {
    const { message, left } = await deletedRelease(60, 30);
    const deleteKeys = vi.mocked(deleteAll).getMockImplementation()!;
    vi.mocked(deleteAll).mockImplementationOnce(deleteKeys).mockRejectedValueOnce(new Error('worker crashed'));
    await expect(purgeProviderData(message)).rejects.toThrow('worker crashed');
    expect(await left()).toEqual({ partition: 61, index: 0 });
    await purgeProviderData(message);
    expect(await left()).toEqual({ partition: 0, index: 0 });
  });
});
