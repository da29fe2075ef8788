import { beforeEach, describe, expect, it } from 'vitest';
import { mockClient } from 'aws-sdk-client-mock';
import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { claimedReleaseId, getRelease, toRelease } from '../../../lib/store/catalogue-releases.js';
import { resetDdbClient, tableName } from '../../../lib/store/client.js';
import { keys } from '../../../lib/store/keys.js';
import { readsStoredEntity } from '../../support/stored-entities.js';

const ddb = mockClient(DynamoDBDocumentClient);
beforeEach(() => {
  ddb.reset();
  resetDdbClient();
});

const stored = {
  ...keys.catalogueRelease('01M84T2AZS9C8TZ6EGZG2RXYHA'),
  entity: 'catalogue-release',
  id: '01M84T2AZS9C8TZ6EGZG2RXYHA',
  version: '2025.12.0',
  title: 'Information Security Manual (December 2025)',
  published: '2025-12-04',
  entries: 1100,
  controls: 992,
  principles: 108,
  status: 'complete',
  digest: 'a'.repeat(64),
  sample: false,
  imported_at: '2026-01-01T00:00:00.000Z',
};

describe('a stored catalogue release', () => {
  readsStoredEntity(toRelease, stored, { status: 'done' });
});

describe('getRelease', () => {
  it('reads a release by its id, strongly consistently', async () => {
    ddb.on(GetCommand).resolves({ Item: stored });
    expect((await getRelease(stored.id))?.version).toBe('2025.12.0');
    expect(ddb.commandCalls(GetCommand).map((c) => c.args[0].input)).toEqual([
      { TableName: tableName(), Key: keys.catalogueRelease(stored.id), ConsistentRead: true },
    ]);
  });

  it('is undefined for a release never imported', async () => {
    ddb.on(GetCommand).resolves({});
    expect(await getRelease(stored.id)).toBeUndefined();
  });
});

describe('claimedReleaseId', () => {
  const claim = { ...keys.catalogueVersion('2025.12.0'), entity: 'catalogue-version', version: '2025.12.0', release_id: stored.id };

  it('is the release id the version was first imported as', async () => {
    ddb.on(GetCommand).resolves({ Item: claim });
    expect(await claimedReleaseId('2025.12.0')).toBe(stored.id);
  });

  it('refuses a claim without its release id, naming its key', async () => {
    ddb.on(GetCommand).resolves({ Item: { ...claim, release_id: undefined } });
    await expect(claimedReleaseId('2025.12.0')).rejects.toThrow('CATALOGUE|VERSION#2025.12.0');
  });
});
