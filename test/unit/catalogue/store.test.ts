import { beforeEach, describe, expect, it } from 'vitest';
import { decodeTime } from 'ulid';
import { mockClient } from 'aws-sdk-client-mock';
import { BatchWriteCommand, DynamoDBDocumentClient, GetCommand, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { importRelease, listReleases, type Release } from '../../../lib/catalogue/store.js';
import { CatalogueError } from '../../../lib/domain/oscal.js';
import { resetDdbClient, tableName } from '../../../lib/store/client.js';
import { keys } from '../../../lib/store/keys.js';
import { buildCatalogueEntry, buildCatalogueRelease } from '../../support/factories.js';

const ddb = mockClient(DynamoDBDocumentClient);
beforeEach(() => {
  ddb.reset();
  resetDdbClient();
  ddb.on(GetCommand).resolves({});
  ddb.on(PutCommand).resolves({});
  ddb.on(BatchWriteCommand).resolves({});
});

const now = new Date('2026-11-27T06:00:00.000Z');
const RELEASE_ID = '01M84T2AZS9C8TZ6EGZG2RXYHR';
const parsed = buildCatalogueRelease({
  version: '2025.12.9',
  entries: [buildCatalogueEntry({ position: 0, kind: 'principle' }), buildCatalogueEntry({ position: 1 }), buildCatalogueEntry({ position: 2 })],
});

/** The version is claimed already, under RELEASE_ID. */
const claim = { ...keys.catalogueVersion(parsed.version), entity: 'catalogue-version', version: parsed.version, release_id: RELEASE_ID };
const claimed = () => ddb.on(GetCommand, { Key: keys.catalogueVersion(parsed.version) }).resolves({ Item: claim });
const puts = () => ddb.commandCalls(PutCommand).map((c) => c.args[0].input);
const releasePuts = () => puts().filter((p) => p.Item?.entity === 'catalogue-release');

describe('importRelease', () => {
  it('claims a release id for a new version, only where no import claimed one first', async () => {
    const release = await importRelease(parsed, { sample: false }, now);
    expect(puts()[0]).toEqual({
      TableName: tableName(),
      Item: { ...keys.catalogueVersion(parsed.version), entity: 'catalogue-version', version: parsed.version, release_id: release.id },
      ConditionExpression: 'attribute_not_exists(#cnd0)',
      ExpressionAttributeNames: { '#cnd0': 'PK' },
    });
  });

  it('gives a new version a release id of the import time', async () => {
    const release = await importRelease(parsed, { sample: false }, now);
    expect(decodeTime(release.id)).toBe(now.getTime());
  });

  it('keeps the release id a version was first imported under', async () => {
    claimed();
    expect((await importRelease(parsed, { sample: false }, now)).id).toBe(RELEASE_ID);
  });

  it('takes the release id of an import that claimed the version at the same time', async () => {
    ddb
      .on(GetCommand, { Key: keys.catalogueVersion(parsed.version) })
      .resolvesOnce({})
      .resolves({ Item: claim });
    ddb.on(PutCommand, { Item: { entity: 'catalogue-version' } }).rejects(Object.assign(new Error('claimed'), { name: 'ConditionalCheckFailedException' }));
    expect((await importRelease(parsed, { sample: true }, now)).id).toBe(RELEASE_ID);
  });

  it('lists the release as importing until every entry is written, then as complete', async () => {
    claimed();
    await importRelease(parsed, { sample: true }, now);
    const release: Release = {
      id: RELEASE_ID,
      version: parsed.version,
      title: parsed.title,
      published: parsed.published,
      entries: 3,
      controls: 2,
      principles: 1,
      status: 'importing',
      digest: expect.stringMatching(/^[0-9a-f]{64}$/),
      sample: true,
      imported_at: now.toISOString(),
    };
    const item = { ...keys.catalogueRelease(RELEASE_ID), entity: 'catalogue-release', ...release };
    expect(releasePuts()).toEqual([
      { TableName: tableName(), Item: item },
      { TableName: tableName(), Item: { ...item, status: 'complete' } },
    ]);
  });

  it('writes every entry under the key of its position, between the two release writes', async () => {
    claimed();
    await importRelease(parsed, { sample: false }, now);
    const entries = parsed.entries.map((e) => ({ PutRequest: { Item: { ...keys.catalogueEntry(RELEASE_ID, e.position), entity: 'catalogue-entry', ...e } } }));
    expect(ddb.calls().map((c) => [c.args[0].constructor.name, c.args[0].input])).toEqual([
      ['GetCommand', expect.anything()],
      ['GetCommand', { TableName: tableName(), Key: keys.catalogueRelease(RELEASE_ID), ConsistentRead: true }],
      ['PutCommand', expect.objectContaining({ Item: expect.objectContaining({ status: 'importing' }) })],
      ['BatchWriteCommand', { RequestItems: { [tableName()]: entries } }],
      ['PutCommand', expect.objectContaining({ Item: expect.objectContaining({ status: 'complete' }) })],
    ]);
  });

  it('answers a complete release of the same content as it is, writing nothing', async () => {
    claimed();
    const first = await importRelease(parsed, { sample: false }, now);
    ddb.resetHistory();
    ddb.on(GetCommand, { Key: keys.catalogueRelease(RELEASE_ID) }).resolves({ Item: { ...keys.catalogueRelease(RELEASE_ID), ...first } });
    const again = await importRelease(parsed, { sample: false }, new Date('2026-12-01T00:00:00.000Z'));
    expect([again, puts(), ddb.commandCalls(BatchWriteCommand)]).toEqual([expect.objectContaining(first), [], []]);
  });

  it('refuses other content under the version of a complete release, writing nothing', async () => {
    claimed();
    const first = await importRelease(parsed, { sample: false }, now);
    ddb.resetHistory();
    ddb.on(GetCommand, { Key: keys.catalogueRelease(RELEASE_ID) }).resolves({ Item: { ...keys.catalogueRelease(RELEASE_ID), ...first } });
    const changed = { ...parsed, entries: [{ ...parsed.entries[0]!, statement: 'changed' }, ...parsed.entries.slice(1)] };
    await expect(importRelease(changed, { sample: false }, now)).rejects.toThrow(
      new CatalogueError('release 2025.12.9 is already imported with other content; a published release never changes'),
    );
    expect(puts()).toEqual([]);
  });

  it('finishes a release an interrupted import left importing', async () => {
    claimed();
    const first = await importRelease(parsed, { sample: false }, now);
    ddb.resetHistory();
    ddb.on(GetCommand, { Key: keys.catalogueRelease(RELEASE_ID) }).resolves({ Item: { ...keys.catalogueRelease(RELEASE_ID), ...first, status: 'importing' } });
    await importRelease(parsed, { sample: false }, now);
    expect(releasePuts().map((p) => p.Item?.status)).toEqual(['importing', 'complete']);
  });
});

describe('listReleases', () => {
  const stored = (id: string, status: string) => ({
    ...keys.catalogueRelease(id),
    entity: 'catalogue-release',
    id,
    version: `v-${id}`,
    title: 'Release',
    published: null,
    entries: 1,
    controls: 1,
    principles: 0,
    status,
    digest: 'a'.repeat(64),
    sample: false,
    imported_at: '2026-01-01T00:00:00.000Z',
  });

  it('queries the catalogue partition for its releases', async () => {
    ddb.on(QueryCommand).resolves({ Items: [] });
    await listReleases();
    expect(ddb.commandCalls(QueryCommand).map((c) => c.args[0].input)).toEqual([
      {
        TableName: tableName(),
        KeyConditionExpression: 'PK = :pk AND begins_with(SK, :sk)',
        ExpressionAttributeValues: { ':pk': 'CATALOGUE', ':sk': 'RELEASE#' },
        ExclusiveStartKey: undefined,
      },
    ]);
  });

  it('answers only the complete releases, in the order read', async () => {
    ddb.on(QueryCommand).resolves({ Items: [stored('A', 'complete'), stored('B', 'importing'), stored('C', 'complete')] });
    expect((await listReleases()).map((r) => r.id)).toEqual(['A', 'C']);
  });
});
