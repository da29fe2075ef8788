import { beforeEach, describe, expect, it } from 'vitest';
import { mockClient } from 'aws-sdk-client-mock';
import { DynamoDBDocumentClient, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { resetDdbClient } from '../../../lib/store/client.js';
import { StoredItemInvalid } from '../../../lib/store/entity.js';
import { systemIdsOf, toSystem } from '../../../lib/store/systems.js';
import { keys } from '../../../lib/store/keys.js';
import { buildSystem } from '../../support/factories.js';
import { describeCollectionCount, readsStoredEntity } from '../../support/stored-entities.js';
import { systemCount } from '../../../lib/store/systems.js';

const system = buildSystem({ version: 2 });
const stored = { ...keys.system(system.organisation_id, system.id), entity: 'system', ...system };

describe('a stored system', () => {
  readsStoredEntity(toSystem, stored, { short_code: undefined });
});

describe('systemIdsOf', () => {
  const ddb = mockClient(DynamoDBDocumentClient);
  beforeEach(() => {
    ddb.reset();
    resetDdbClient();
  });
  const projected = { ...keys.system(system.organisation_id, system.id), id: system.id };

  it("reads the ids of the organisation's systems, projected with their keys", async () => {
    ddb.on(QueryCommand).resolves({ Items: [projected] });
    expect(await systemIdsOf(system.organisation_id)).toEqual([system.id]);
    expect(ddb.commandCalls(QueryCommand)[0]!.args[0].input.ProjectionExpression).toBe('PK, SK, id');
  });

  it('refuses a system without its id, naming its key', async () => {
    const { id: _id, ...unnamed } = projected;
    ddb.on(QueryCommand).resolves({ Items: [unnamed] });
    await expect(systemIdsOf(system.organisation_id)).rejects.toThrow(StoredItemInvalid);
    await expect(systemIdsOf(system.organisation_id)).rejects.toThrow(`ORG#${system.organisation_id}|SYSTEM#${system.id}`);
  });
});

describeCollectionCount("an organisation's system count", systemCount, {
  counters: keys.organisationCounters('O1'),
  name: 'systems',
  neighbour: 'members',
  malformed: { what: 'stored as text', value: '2' },
});
