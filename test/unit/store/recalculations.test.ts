import { beforeEach, describe, expect, it } from 'vitest';
import { mockClient } from 'aws-sdk-client-mock';
import { DynamoDBDocumentClient, GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { resetDdbClient, tableName } from '../../../lib/store/client.js';
import { gsi1, keys } from '../../../lib/store/keys.js';
import { asRecalculationMarker, pendingRecalculations, recalculationMarkerOf, subjectOf } from '../../../lib/store/recalculations.js';
import { buildRecalculationMarker } from '../../support/factories.js';

const ddb = mockClient(DynamoDBDocumentClient);
beforeEach(() => {
  ddb.reset();
  resetDdbClient();
});

const marker = buildRecalculationMarker();
const stored = { ...marker, entity: 'applicability-recalculation', organisation_id: 'O1', GSI1PK: gsi1.pendingRecalculations, GSI1SK: `x#${marker.PK}` };

describe('asRecalculationMarker', () => {
  it('reads a stored marker with its key, keeping what it does not name', () => {
    expect(asRecalculationMarker(stored)).toEqual({ ...marker, organisation_id: 'O1' });
  });

  it('keeps the lease and re-queue fields the sweep judges', () => {
    expect(asRecalculationMarker({ ...stored, lease_until: '2026-01-01T00:02:00.000Z', requeues: 2 })).toMatchObject({
      lease_until: '2026-01-01T00:02:00.000Z',
      requeues: 2,
    });
  });

  it('reads a marker stopped for lost authority', () => {
    expect(asRecalculationMarker({ ...stored, stopped: 'authorisation_lost' })?.stopped).toBe('authorisation_lost');
  });

  it('is undefined when there is no marker', () => {
    expect(asRecalculationMarker(undefined)).toBeUndefined();
  });

  it('refuses a marker without its generation, naming its key', () => {
    expect(() => asRecalculationMarker({ ...stored, generation: 'one' })).toThrow(`${marker.PK}|${marker.SK}`);
  });
});

describe('subjectOf', () => {
  it('is the subject the marker names', () => {
    expect(subjectOf(marker)).toEqual(marker.subject);
  });

  it("names a marker from before subjects were stored by its key's partition", () => {
    const { subject: _subject, ...legacy } = stored;
    expect(subjectOf(asRecalculationMarker({ ...legacy, ...keys.organisationRecalculation('O1') })!)).toEqual({ organisation_id: 'O1' });
    expect(subjectOf(asRecalculationMarker({ ...legacy, ...keys.projectRecalculation('P1') })!)).toEqual({ project_id: 'P1' });
  });
});

describe('recalculationMarkerOf', () => {
  it("reads the subject's marker strongly consistently", async () => {
    ddb.on(GetCommand).resolves({ Item: stored });
    expect(await recalculationMarkerOf({ system_id: 'S1' })).toEqual({ ...marker, organisation_id: 'O1' });
    expect(ddb.commandCalls(GetCommand).map((c) => c.args[0].input)).toEqual([
      { TableName: tableName(), Key: keys.applicabilityRecalculation('S1'), ConsistentRead: true },
    ]);
  });
});

describe('pendingRecalculations', () => {
  it('reads every pending marker from the index', async () => {
    ddb.on(QueryCommand).resolves({ Items: [stored] });
    expect(await pendingRecalculations()).toEqual([{ ...marker, organisation_id: 'O1' }]);
    expect(ddb.commandCalls(QueryCommand).map((c) => c.args[0].input)).toEqual([
      {
        TableName: tableName(),
        IndexName: 'GSI1',
        KeyConditionExpression: 'GSI1PK = :pk',
        ExpressionAttributeValues: { ':pk': gsi1.pendingRecalculations },
        ExclusiveStartKey: undefined,
      },
    ]);
  });
});
