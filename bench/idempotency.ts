import { IdempotencyConfig, makeIdempotent } from '@aws-lambda-powertools/idempotency';
import { DynamoDBPersistenceLayer } from '@aws-lambda-powertools/idempotency/dynamodb';
import type { Context } from 'aws-lambda';
import { newUlid } from '../lib/domain/ids.js';
import { slugify } from '../lib/domain/organisations.js';
import { auditWrite, type AuditRecord } from '../lib/store/audit.js';
import { ddb, sequentialRoundTrips, tableName, traceDdb, type DdbCall } from '../lib/store/client.js';
import { createOrganisationWrites, newOrganisation, slugTaken } from '../lib/store/organisations.js';
import { canonicalHash, idempotencyDigest, receiptWrite } from '../lib/store/receipts.js';
import { commit } from '../lib/store/transact.js';

/** One create path's cost per create, as DynamoDB Local reports it. */
export interface CreateFigures {
  creates: number;
  ddb_requests: number;
  ddb_sequential_round_trips: number;
  wcu: number;
  rcu: number;
  requests_by_command: Record<string, number>;
}

const round2 = (n: number) => Math.round(n * 100) / 100;
const refused = () => new Error('refused');

/**
 * The createOrganisation write as the handler builds it: the slug check, then the organisation,
 * its slug claim, the licence counter and the creator's discovery entry, with its audit record.
 */
async function organisationWrites(userId: string, name: string) {
  const id = newUlid();
  const wanted = slugify(name);
  const slug = (await slugTaken(wanted)) ? `${wanted.slice(0, 50)}-${id.slice(-8).toLowerCase()}` : wanted;
  const now = new Date();
  const org = newOrganisation({ id, name, slug, timezone: 'Australia/Sydney', createdBy: userId, now });
  const audit: AuditRecord = {
    kind: 'CREATE_ORGANISATION',
    request_id: newUlid(),
    operation_id: 'createOrganisation',
    method: 'POST',
    route: '/api/v1/organisations',
    status: 201,
    actor_id: userId,
    organisation_id: id,
    target: { organisation: id },
  };
  return { org, now, writes: [...createOrganisationWrites(org, 1_000_000, refused, refused), auditWrite(audit, now)] };
}

function figures(creates: number, traces: DdbCall[][]): CreateFigures {
  const calls = traces.flat();
  const byCommand: Record<string, number> = {};
  for (const c of calls) byCommand[c.command] = (byCommand[c.command] ?? 0) + 1;
  return {
    creates,
    ddb_requests: round2(calls.length / creates),
    ddb_sequential_round_trips: round2(traces.reduce((s, t) => s + sequentialRoundTrips(t), 0) / creates),
    wcu: round2(calls.reduce((s, c) => s + c.wcu, 0) / creates),
    rcu: round2(calls.reduce((s, c) => s + c.rcu, 0) / creates),
    requests_by_command: Object.fromEntries(Object.entries(byCommand).map(([k, v]) => [k, round2(v / creates)])),
  };
}

/**
 * P3: the same create made idempotent two ways, in-process, past authentication (which both need
 * and which also reads the receipt, in the same BatchGetItem). The receipt way commits resource,
 * receipt and audit in one TransactWriteItems; Powertools writes its lock record, runs the same
 * write (resource and audit), and then completes the record.
 */
export async function benchIdempotency(userId: string, creates: number): Promise<{ receipt: CreateFigures; powertools: CreateFigures }> {
  const receiptTraces: DdbCall[][] = [];
  for (let i = 0; i < creates; i++) {
    const name = `Receipt Bench ${i}`;
    const key = `bench-receipt-${i}`;
    const { calls } = await traceDdb(async () => {
      const { org, now, writes } = await organisationWrites(userId, name);
      const seconds = Math.floor(now.getTime() / 1000);
      const scope = { userId, tokenId: 'bench', operationId: 'createOrganisation', target: 'createOrganisation', payloadHash: canonicalHash({ name }) };
      await commit([receiptWrite(scope, idempotencyDigest(key), { status: 201, data: { id: org.id } }, seconds), ...writes]);
    });
    receiptTraces.push(calls);
  }

  const config = new IdempotencyConfig({ eventKeyJmesPath: 'key', expiresAfterSeconds: 24 * 60 * 60 });
  // As in a Lambda function: the lock record expires with the invocation's remaining time.
  config.registerLambdaContext({ getRemainingTimeInMillis: () => 30_000 } as Context);
  const persistenceStore = new DynamoDBPersistenceLayer({
    tableName: tableName(),
    keyAttr: 'PK',
    sortKeyAttr: 'SK',
    staticPkValue: 'IDEMPOTENCY#bench',
    awsSdkV3Client: ddb(),
  });
  const create = makeIdempotent(
    async (input: { key: string; name: string }) => {
      const { org, writes } = await organisationWrites(userId, input.name);
      await commit(writes);
      return { id: org.id };
    },
    { persistenceStore, config },
  );
  const powertoolsTraces: DdbCall[][] = [];
  for (let i = 0; i < creates; i++) {
    const { calls } = await traceDdb(() => create({ key: `bench-powertools-${i}`, name: `Powertools Bench ${i}` }));
    powertoolsTraces.push(calls);
  }
  return { receipt: figures(creates, receiptTraces), powertools: figures(creates, powertoolsTraces) };
}

export function formatIdempotency(f: { receipt: CreateFigures; powertools: CreateFigures }): string {
  const row = (name: string, c: CreateFigures) =>
    `  ${name.padEnd(44)}  ${c.ddb_sequential_round_trips.toFixed(2).padStart(10)}  ${c.ddb_requests.toFixed(2).padStart(8)}  ${c.wcu.toFixed(2).padStart(6)}  ${c.rcu.toFixed(2).padStart(6)}  ${Object.entries(
      c.requests_by_command,
    )
      .map(([k, v]) => `${k} x${v}`)
      .join(', ')}`;
  return [
    '',
    `P3, idempotent createOrganisation past authentication (${f.receipt.creates} creates each, in-process, same domain write):`,
    `  ${'variant'.padEnd(44)}  ${'seq_trips'.padStart(10)}  ${'requests'.padStart(8)}  ${'wcu'.padStart(6)}  ${'rcu'.padStart(6)}  commands`,
    row('receipt in the TransactWriteItems (this API)', f.receipt),
    row('Powertools idempotency (DynamoDB layer)', f.powertools),
    '  The receipt read rides in the authentication BatchGetItem (one item more, no round trip more).',
  ].join('\n');
}
