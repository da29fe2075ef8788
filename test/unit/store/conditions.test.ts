import { beforeEach, describe, expect, it } from 'vitest';
import { mockClient } from 'aws-sdk-client-mock';
import { DynamoDBDocumentClient, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { resetDdbClient, tableName } from '../../../lib/store/client.js';
import { and, attributeEquals, itemPresent, memberEquals, versionIs } from '../../../lib/store/conditions.js';
import { updateIf } from '../../../lib/store/update.js';

const ddb = mockClient(DynamoDBDocumentClient);

beforeEach(() => {
  ddb.reset();
  resetDdbClient();
  ddb.on(UpdateCommand).resolves({});
});

const guarded = () => and(itemPresent(), versionIs(3), memberEquals(['checks', 'malware'], 'clean', true), attributeEquals('status', 'active'));

describe('condition placeholders', () => {
  it('numbers the placeholders of a conjunction in the order of its parts', async () => {
    await updateIf({ PK: 'P', SK: 'S' }, { title: 'T', version: 4 }, guarded(), ['GSI1PK']);
    expect(ddb.commandCalls(UpdateCommand)[0]!.args[0].input).toEqual({
      TableName: tableName(),
      Key: { PK: 'P', SK: 'S' },
      UpdateExpression: 'SET #set0 = :set0, #set1 = :set1 REMOVE #rm0',
      ConditionExpression: '(attribute_exists(#cnd0)) AND (#cnd1 = :cnd0) AND (attribute_not_exists(#cnd2.#cnd3) OR #cnd2.#cnd3 = :cnd1) AND (#cnd4 = :cnd2)',
      ExpressionAttributeNames: {
        '#set0': 'title',
        '#set1': 'version',
        '#rm0': 'GSI1PK',
        '#cnd0': 'PK',
        '#cnd1': 'version',
        '#cnd2': 'checks',
        '#cnd3': 'malware',
        '#cnd4': 'status',
      },
      ExpressionAttributeValues: { ':set0': 'T', ':set1': 4, ':cnd0': 3, ':cnd1': 'clean', ':cnd2': 'active' },
    });
  });

  it('makes the same write into the same command every time', async () => {
    await updateIf({ PK: 'P', SK: 'S' }, { title: 'T' }, guarded());
    await updateIf({ PK: 'P', SK: 'S' }, { title: 'T' }, guarded());
    const [first, second] = ddb.commandCalls(UpdateCommand).map((call) => call.args[0].input);
    expect(second).toEqual(first);
  });

  it('renumbers a nested conjunction after the parts before it', () => {
    expect(and(versionIs(1), and(attributeEquals('a', 'x'), attributeEquals('b', 'y')))).toEqual({
      expression: '(#cnd0 = :cnd0) AND ((#cnd1 = :cnd1) AND (#cnd2 = :cnd2))',
      names: { '#cnd0': 'version', '#cnd1': 'a', '#cnd2': 'b' },
      values: { ':cnd0': 1, ':cnd1': 'x', ':cnd2': 'y' },
    });
  });
});
