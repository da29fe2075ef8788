import { beforeEach, describe, expect, it } from 'vitest';
import { mockClient } from 'aws-sdk-client-mock';
import { DynamoDBDocumentClient, PutCommand } from '@aws-sdk/lib-dynamodb';
import { decodeTime } from 'ulid';
import { auditWrite, type AuditRecord, writeAudit, writeSampledRateLimitAudit } from '../../../lib/store/audit.js';
import { resetDdbClient, tableName } from '../../../lib/store/client.js';

const ddb = mockClient(DynamoDBDocumentClient);
beforeEach(() => {
  ddb.reset();
  resetDdbClient();
  ddb.on(PutCommand).resolves({});
});

const at = new Date('2026-11-22T10:00:15.000Z');
const record: AuditRecord = {
  kind: 'REQUEST',
  request_id: 'REQ',
  operation_id: 'getOrganisation',
  method: 'GET',
  route: '/api/v1/organisations/{organisation}',
  status: 200,
  actor_id: 'U',
  organisation_id: 'O',
};
const puts = () => ddb.commandCalls(PutCommand).map((c) => c.args[0].input);

describe('auditWrite', () => {
  it("files the record under its organisation's day, in time order, with an id of its instant", () => {
    const write = auditWrite(record, at);
    const id = write.kind === 'put' ? String(write.item.id) : '';
    expect(write).toEqual({
      kind: 'put',
      item: { PK: 'AUDIT#O#2026-11-22', SK: `2026-11-22T10:00:15.000Z#${id}`, entity: 'audit', id, at: at.toISOString(), ...record },
    });
    expect(decodeTime(id)).toBe(at.getTime());
  });

  it('files a record of no organisation under the installation', () => {
    const { organisation_id: _o, ...installation } = record;
    const write = auditWrite(installation, at);
    expect(write.kind === 'put' && write.item.PK).toBe('AUDIT#installation#2026-11-22');
  });
});

describe('writeAudit', () => {
  it('puts the record unconditionally', async () => {
    await writeAudit(record, at);
    const id = puts()[0]?.Item?.id;
    expect(puts()).toEqual([
      {
        TableName: tableName(),
        Item: { PK: 'AUDIT#O#2026-11-22', SK: `2026-11-22T10:00:15.000Z#${id}`, entity: 'audit', id, at: at.toISOString(), ...record },
      },
    ]);
  });
});

describe('writeSampledRateLimitAudit', () => {
  const limited: AuditRecord = { ...record, kind: 'RATE_LIMITED', status: 429, source_ip: '203.0.113.9' };

  it('puts one record per source IP and minute, only where none is yet', async () => {
    await writeSampledRateLimitAudit(limited, at);
    const minute = Math.floor(at.getTime() / 60_000);
    const id = puts()[0]?.Item?.id;
    expect(puts()).toEqual([
      {
        TableName: tableName(),
        Item: { PK: 'AUDIT#O#2026-11-22', SK: `RATE_LIMITED#203.0.113.9#${minute}`, entity: 'audit', id, at: at.toISOString(), ...limited },
        ConditionExpression: 'attribute_not_exists(#cnd0)',
        ExpressionAttributeNames: { '#cnd0': 'PK' },
      },
    ]);
  });

  it('answers without error when the minute already has its record', async () => {
    ddb.on(PutCommand).rejects(Object.assign(new Error('taken'), { name: 'ConditionalCheckFailedException' }));
    await expect(writeSampledRateLimitAudit(limited, at)).resolves.toBeUndefined();
  });
});
