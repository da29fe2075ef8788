import { readdirSync } from 'node:fs';
import { DynamoDBClient, ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { expect, it } from 'vitest';
import { startDynamoDbLocal } from '../../lib/local/emulators.js';
import { scratchDir } from '../support/scratch.js';

it('starts DynamoDB Local on the SQLite library beside its jar, leaving nothing in the temp folder when it stops', async () => {
  const temp = scratchDir('java-tmp-');
  // test/support/restore-env.ts puts process.env back at the file's end.
  process.env.JAVA_TOOL_OPTIONS = `-Djava.io.tmpdir=${temp}`;
  const emulator = await startDynamoDbLocal({});
  try {
    const client = new DynamoDBClient({
      region: 'ap-southeast-2',
      endpoint: emulator.endpoint,
      credentials: { accessKeyId: 'library', secretAccessKey: 'local' },
    });
    expect((await client.send(new ListTablesCommand({}))).TableNames).toEqual([]);
    client.destroy();
  } finally {
    await emulator.stop();
  }
  expect(readdirSync(temp)).toEqual([]);
});
