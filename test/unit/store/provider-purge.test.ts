import { beforeEach, describe, expect, it } from 'vitest';
import { mockClient } from 'aws-sdk-client-mock';
import { DeleteCommand, DynamoDBDocumentClient, GetCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { resetDdbClient, tableName } from '../../../lib/store/client.js';
import { attributeEquals } from '../../../lib/store/conditions.js';
import { gsi1, keys } from '../../../lib/store/keys.js';
import {
  purgeMarkerItem,
  purgeMarkerWrite,
  purgePages,
  purgePending,
  purgeSubjectOf,
  purgesRequestedBefore,
  removePurgeMarker,
  toPurgeItem,
  toPurgeMarker,
  updatePurgeMarker,
} from '../../../lib/store/provider-purge.js';
import { StoredItemInvalid } from '../../../lib/store/entity.js';

const ddb = mockClient(DynamoDBDocumentClient);
beforeEach(() => {
  ddb.reset();
  resetDdbClient();
});

const now = new Date('2026-11-22T10:00:00.000Z');
const release = { provider_id: 'V', release_id: 'R' };
const provider = { provider_id: 'V' };
const inputs = <T>(command: new (input: T) => unknown) => ddb.commandCalls(command as never).map((c) => c.args[0].input);

describe('purgeMarkerItem', () => {
  it("marks a release's purge in the provider's partition, listed among pending purges by request time", () => {
    expect(purgeMarkerItem(release, 'U', now)).toEqual({
      PK: 'PROVIDER#V',
      SK: 'PURGE#RELEASE#R',
      entity: 'provider-purge',
      provider_id: 'V',
      release_id: 'R',
      requested_at: now.toISOString(),
      requested_by: 'U',
      GSI1PK: gsi1.pendingPurges,
      GSI1SK: `${now.toISOString()}#V#R`,
    });
  });

  it("marks a whole provider's purge with no release", () => {
    expect(purgeMarkerItem(provider, 'U', now)).toMatchObject({ SK: 'PURGE#PROVIDER', release_id: null, GSI1SK: `${now.toISOString()}#V#` });
  });

  it('is put unconditionally in the deleting transaction', () => {
    expect(purgeMarkerWrite(release, 'U', now)).toEqual({ kind: 'put', item: purgeMarkerItem(release, 'U', now) });
  });
});

describe('purgeSubjectOf', () => {
  it('reads the subject of a release marker back', () => {
    expect(purgeSubjectOf(toPurgeMarker(purgeMarkerItem(release, 'U', now)))).toEqual(release);
  });

  it('reads the subject of a provider marker back without a release', () => {
    expect(purgeSubjectOf(toPurgeMarker(purgeMarkerItem(provider, 'U', now)))).toEqual(provider);
  });
});

describe('purgePending', () => {
  it('reads the marker strongly consistent and answers whether it is there', async () => {
    ddb.on(GetCommand).resolves({ Item: purgeMarkerItem(release, 'U', now) });
    expect(await purgePending(release)).toBe(true);
    expect(inputs(GetCommand)).toEqual([{ TableName: tableName(), Key: keys.providerPurge('V', 'R'), ConsistentRead: true }]);
  });

  it('answers false once the marker is gone', async () => {
    ddb.on(GetCommand).resolves({});
    expect(await purgePending(release)).toBe(false);
  });
});

describe('removePurgeMarker', () => {
  it('deletes the marker', async () => {
    ddb.on(DeleteCommand).resolves({});
    await removePurgeMarker(provider);
    expect(inputs(DeleteCommand)).toEqual([{ TableName: tableName(), Key: keys.providerPurge('V') }]);
  });
});

describe('purgesRequestedBefore', () => {
  it('queries the pending purges requested before the instant', async () => {
    ddb.on(QueryCommand).resolves({ Items: [purgeMarkerItem(release, 'U', now)] });
    expect(await purgesRequestedBefore('2026-11-23T00:00:00.000Z')).toEqual([
      { provider_id: 'V', release_id: 'R', requested_at: now.toISOString(), requested_by: 'U' },
    ]);
    expect(inputs(QueryCommand)).toEqual([
      {
        IndexName: 'GSI1',
        KeyConditionExpression: 'GSI1PK = :pk AND GSI1SK < :before',
        ExpressionAttributeValues: { ':pk': 'PURGE_PENDING', ':before': '2026-11-23T00:00:00.000Z' },
        TableName: tableName(),
        ExclusiveStartKey: undefined,
      },
    ]);
  });
});

describe('toPurgeMarker', () => {
  it('keeps the lease and re-queue fields the sweep judges', () => {
    const leased = { ...purgeMarkerItem(provider, 'U', now), lease_until: '2026-11-22T10:02:00.000Z', requeues: 1 };
    expect(toPurgeMarker(leased)).toMatchObject({ lease_until: '2026-11-22T10:02:00.000Z', requeues: 1 });
  });

  it('refuses a marker without its request time, naming its key', () => {
    const { requested_at: _at, ...broken } = purgeMarkerItem(release, 'U', now);
    expect(() => toPurgeMarker(broken)).toThrow(/PROVIDER#V\|PURGE#RELEASE#R/);
  });
});

describe('updatePurgeMarker', () => {
  it('sets the fields while the marker exists and the condition holds', async () => {
    ddb.on(UpdateCommand).resolves({});
    expect(await updatePurgeMarker(release, { lease_until: 5 }, attributeEquals('requested_by', 'U'))).toBe(true);
    expect(inputs(UpdateCommand)).toEqual([
      {
        TableName: tableName(),
        Key: keys.providerPurge('V', 'R'),
        UpdateExpression: 'SET #set0 = :set0',
        ConditionExpression: '(attribute_exists(#cnd0)) AND (#cnd1 = :cnd0)',
        ExpressionAttributeNames: { '#set0': 'lease_until', '#cnd0': 'PK', '#cnd1': 'requested_by' },
        ExpressionAttributeValues: { ':set0': 5, ':cnd0': 'U' },
      },
    ]);
  });
});

describe('purgePages', () => {
  const assertion = { PK: 'PROVIDER#V', SK: 'ASSERTION#X', entity: 'assertion', status: 'confirmed', control_id: 'C', release_id: 'R' };

  it("queries the provider's items under the prefix, of the release only, strongly consistent", async () => {
    ddb.on(QueryCommand).resolves({ Items: [assertion] });
    const pages = [];
    for await (const page of purgePages('V', 'ASSERTION#', 'R')) pages.push(page);
    expect(pages).toEqual([[assertion]]);
    expect(inputs(QueryCommand)).toEqual([
      {
        KeyConditionExpression: '#pk = :pk AND begins_with(#sk, :prefix)',
        FilterExpression: '#r = :r',
        ProjectionExpression: '#pk, #sk, #e, #s, #c, #r, #u',
        ExpressionAttributeNames: { '#pk': 'PK', '#sk': 'SK', '#e': 'entity', '#s': 'status', '#c': 'control_id', '#r': 'release_id', '#u': 'upload_id' },
        ExpressionAttributeValues: { ':pk': 'PROVIDER#V', ':prefix': 'ASSERTION#', ':r': 'R' },
        ConsistentRead: true,
        TableName: tableName(),
        ExclusiveStartKey: undefined,
      },
    ]);
  });

  it('queries the whole partition for no prefix and no release', async () => {
    ddb.on(QueryCommand).resolves({ Items: [assertion] });
    for await (const _ of purgePages('V', '')) break;
    expect(inputs(QueryCommand)[0]).toMatchObject({ KeyConditionExpression: '#pk = :pk', ExpressionAttributeValues: { ':pk': 'PROVIDER#V' } });
  });

  it('refuses a page with an item that fails its schema, naming its key', async () => {
    ddb.on(QueryCommand).resolves({ Items: [assertion, { ...assertion, SK: 'ASSERTION#Y', control_id: 7 }] });
    const read = async () => {
      for await (const _ of purgePages('V', 'ASSERTION#', 'R'));
    };
    await expect(read()).rejects.toThrow(StoredItemInvalid);
    await expect(read()).rejects.toThrow('PROVIDER#V|ASSERTION#Y');
  });

  it('skips pages that the filter left empty', async () => {
    ddb
      .on(QueryCommand)
      .resolvesOnce({ Items: [], LastEvaluatedKey: { PK: 'PROVIDER#V', SK: 'ASSERTION#W' } })
      .resolves({ Items: [assertion] });
    const pages = [];
    for await (const page of purgePages('V', 'ASSERTION#', 'R')) pages.push(page);
    expect(pages).toEqual([[assertion]]);
  });
});

describe('toPurgeItem', () => {
  it('reads what a confirmed assertion points at, with its key and entity', () => {
    const assertion = { PK: 'PROVIDER#V', SK: 'ASSERTION#X', entity: 'assertion', status: 'confirmed', control_id: 'C', release_id: 'R' };
    expect(toPurgeItem(assertion)).toEqual(assertion);
  });

  it("reads a deleted artefact's upload, and the marker, which holds no release", () => {
    const file = { ...keys.deletedArtefactFile('V', 'U'), entity: 'deleted-artefact-file', upload_id: 'U' };
    expect(toPurgeItem(file)).toEqual(file);
    expect(toPurgeItem(purgeMarkerItem(provider, 'U', now))).toMatchObject({ entity: 'provider-purge', release_id: null });
  });

  it('refuses an upload that is not an id, naming the key', () => {
    const item = { ...keys.deletedArtefactFile('V', 'U'), entity: 'deleted-artefact-file', upload_id: ['U'] };
    expect(() => toPurgeItem(item)).toThrow(StoredItemInvalid);
    expect(() => toPurgeItem(item)).toThrow('PROVIDER#V|DELETEDFILE#U');
  });
});
