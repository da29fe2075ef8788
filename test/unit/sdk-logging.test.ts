import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { expect, it } from 'vitest';
import { withoutSdkLogging } from '../../lib/sdk-logging.js';

const middlewareNames = (client: DynamoDBClient) => client.middlewareStack.identify().map((entry) => entry.split(' ')[0]);

it('finds the logger middleware the SDK puts on each client', () => {
  expect(middlewareNames(new DynamoDBClient({ region: 'local' }))).toContain('loggerMiddleware');
});

it('takes the SDK logger middleware off a client and leaves the rest of its stack', () => {
  const client = new DynamoDBClient({ region: 'local' });
  const before = middlewareNames(client);
  withoutSdkLogging(client.middlewareStack);
  expect(middlewareNames(client)).toEqual(before.filter((name) => name !== 'loggerMiddleware'));
});
