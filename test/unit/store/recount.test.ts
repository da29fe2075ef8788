import { beforeEach, describe, expect, it } from 'vitest';
import { mockClient } from 'aws-sdk-client-mock';
import { BatchGetCommand, DynamoDBDocumentClient, QueryCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { resetDdbClient } from '../../../lib/store/client.js';
import type { StoredControl } from '../../../lib/domain/controls.js';
import { controlItem, recountProject } from '../../../lib/store/controls.js';
import { keys } from '../../../lib/store/keys.js';
import { buildControl } from '../../support/factories.js';

const ddb = mockClient(DynamoDBDocumentClient);

const control = (
  id: string,
  position: number,
  implementation_status: StoredControl['implementation_status'],
  overall_assessed_outcome: StoredControl['overall_assessed_outcome'],
) => controlItem(buildControl({ id, project_id: 'P', position, implementation_status, overall_assessed_outcome }));

beforeEach(() => {
  ddb.reset();
  resetDdbClient();
  ddb.on(BatchGetCommand).resolves({ Responses: {} });
  ddb.on(QueryCommand).resolves({ Items: [control('C1', 1, 'implemented', 'effective'), control('C2', 2, null, null)] });
  ddb.on(UpdateCommand).resolves({});
  ddb.on(TransactWriteCommand).resolves({});
});

describe('recountProject', () => {
  it('writes the implementation status and outcome counters the control-summary register reads', async () => {
    await recountProject('P', new Date('2026-11-23T00:00:00.000Z'));
    const puts = ddb.commandCalls(TransactWriteCommand).flatMap((c) => c.args[0].input.TransactItems!.flatMap((t) => (t.Put ? [t.Put.Item!] : [])));
    const summary = puts.find((item) => item.SK === keys.projectSummary('P').SK);
    expect(summary).toMatchObject({ impl_implemented: 1, impl_not_set: 1, outcome_effective: 1, outcome_not_assessed: 1 });
  });
});
