import { beforeAll, describe, expect, it } from 'vitest';
import { purgeProviderData } from '../../lib/jobs/provider-purge.js';
import { traceDdb } from '../../lib/store/client.js';
import { keys } from '../../lib/store/keys.js';
import { batchWriteTo, interceptAws } from '../support/aws-faults.js';
import { deletedRelease } from '../support/provider-purge.js';
import { useTestServices } from '../support/services.js';

beforeAll(async () => {
  await useTestServices();
});

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
    // One marker read, two Queries of the partition (assertions, import runs), one lease renewal for the one page, 40 + 12 batches, one marker delete.
    expect(counts(calls)).toEqual({ GetItem: 1, Query: 2, UpdateItem: 1, BatchWriteItem: 52, DeleteItem: 1 });
  }, 60_000);

  it('does nothing on a redelivery once it has finished', async () => {
    const { message } = await deletedRelease(3, 1);
    await purgeProviderData(message);
    const { calls } = await traceDdb(() => purgeProviderData(message));
    expect(counts(calls)).toEqual({ GetItem: 1 });
  });

  it('deletes what is left on a redelivery after a delivery that failed part way, index items first', async () => {
    const { message, left } = await deletedRelease(60, 30);
    // The index items' batches go through; those of the release's own items fail.
    const ownItems = batchWriteTo(keys.externalProvider(message.provider_id).PK);
    const stop = await interceptAws(async (request, send) => {
      if (ownItems(request)) throw new Error('worker crashed');
      return send();
    });
    try {
      await expect(purgeProviderData(message)).rejects.toThrow('worker crashed');
    } finally {
      stop();
    }
    expect(await left()).toEqual({ partition: 61, index: 0 });
    await purgeProviderData(message);
    expect(await left()).toEqual({ partition: 0, index: 0 });
  });
});
