import { AsyncLocalStorage } from 'node:async_hooks';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { addCommandRecording, describeDynamoDb } from '../command-recording.js';
import { settings } from '../config.js';
import { withoutSdkLogging } from '../sdk-logging.js';

/** One DynamoDB request as seen by the trace (the benchmark reads these). */
export interface DdbCall {
  command: string;
  start: number;
  end: number;
  rcu: number;
  wcu: number;
}

const trace = new AsyncLocalStorage<DdbCall[]>();

/** Runs `fn` and returns the DynamoDB requests it made, with consumed capacity. */
export async function traceDdb<T>(fn: () => Promise<T>): Promise<{ result: T; calls: DdbCall[] }> {
  const calls: DdbCall[] = [];
  const result = await trace.run(calls, fn);
  return { result, calls };
}

/** Data-plane commands, which report consumed capacity; a scan is among them so that the benchmark can catch one. */
const CAPACITY_COMMANDS = /^(?:GetItem|PutItem|UpdateItem|DeleteItem|Query|Scan|BatchGetItem|BatchWriteItem|TransactGetItems|TransactWriteItems)Command$/;
const READ_COMMANDS = /^(?:GetItem|Query|Scan|BatchGetItem|TransactGetItems)Command$/;
const WRITE_COMMANDS = /^(?:Put|Update|Delete|BatchWrite|TransactWrite)(?:Item|Items)?Command$/;

const writeListeners = new Set<() => void>();

/**
 * Calls `listener` after each write this process makes to the table, until the returned function
 * is called: the local stream reader wakes on it instead of polling an idle stream.
 */
export function onTableWrite(listener: () => void): () => void {
  writeListeners.add(listener);
  return () => writeListeners.delete(listener);
}

interface Capacity {
  CapacityUnits?: number;
  ReadCapacityUnits?: number;
  WriteCapacityUnits?: number;
}

function capacityOf(command: string, consumed: Capacity | Capacity[] | undefined): { rcu: number; wcu: number } {
  const list = consumed === undefined ? [] : Array.isArray(consumed) ? consumed : [consumed];
  let rcu = 0;
  let wcu = 0;
  for (const c of list) {
    if (c.ReadCapacityUnits !== undefined || c.WriteCapacityUnits !== undefined) {
      rcu += c.ReadCapacityUnits ?? 0;
      wcu += c.WriteCapacityUnits ?? 0;
    } else if (READ_COMMANDS.test(command)) rcu += c.CapacityUnits ?? 0;
    else wcu += c.CapacityUnits ?? 0;
  }
  return { rcu, wcu };
}

/** Where this process's DynamoDB clients connect: AWS's regional endpoint, or DynamoDB Local's database for DYNAMODB_LOCAL_DATABASE. */
export function dynamoDbEndpoint() {
  const { DYNAMODB_ENDPOINT, DYNAMODB_LOCAL_DATABASE, AWS_REGION } = settings();
  return {
    region: AWS_REGION,
    ...(DYNAMODB_ENDPOINT ? { endpoint: DYNAMODB_ENDPOINT, credentials: { accessKeyId: DYNAMODB_LOCAL_DATABASE, secretAccessKey: 'local' } } : {}),
  };
}

function createClient(): DynamoDBDocumentClient {
  const base = new DynamoDBClient({
    ...dynamoDbEndpoint(),
    maxAttempts: 4,
  });
  base.middlewareStack.add(
    (next, context) => async (args) => {
      const calls = trace.getStore();
      const command = context.commandName ?? 'unknown';
      if (!calls || !CAPACITY_COMMANDS.test(command)) return next(args);
      const input = args.input as Record<string, unknown>;
      input.ReturnConsumedCapacity ??= 'TOTAL';
      const start = performance.now();
      const out = await next(args);
      const output = out.output as { ConsumedCapacity?: Capacity | Capacity[] };
      calls.push({ command: command.replace(/Command$/, ''), start, end: performance.now(), ...capacityOf(command, output.ConsumedCapacity) });
      return out;
    },
    { step: 'initialize', name: 'ddbTrace' },
  );
  base.middlewareStack.add(
    (next, context) => async (args) => {
      const out = await next(args);
      if (WRITE_COMMANDS.test(context.commandName ?? '')) for (const listener of writeListeners) listener();
      return out;
    },
    { step: 'initialize', name: 'tableWriteListeners' },
  );
  addCommandRecording(base.middlewareStack, describeDynamoDb);
  withoutSdkLogging(base.middlewareStack);
  return DynamoDBDocumentClient.from(base, {
    marshallOptions: { removeUndefinedValues: true, convertClassInstanceToMap: false },
  });
}

let client: DynamoDBDocumentClient | undefined;

export function ddb(): DynamoDBDocumentClient {
  client ??= createClient();
  return client;
}

export function tableName(): string {
  return settings().TABLE_NAME;
}

/** The local runtime and tests point the process at another endpoint or table after start. */
export function resetDdbClient(): void {
  client?.destroy();
  client = undefined;
}

/** Longest chain of calls where each starts after the previous one ended: the sequential round trips. */
export function sequentialRoundTrips(calls: DdbCall[]): number {
  const sorted = [...calls].sort((a, b) => a.end - b.end);
  const depth: number[] = [];
  sorted.forEach((call, i) => {
    let best = 0;
    for (let j = 0; j < i; j++) if (sorted[j]!.end <= call.start) best = Math.max(best, depth[j]!);
    depth.push(best + 1);
  });
  return Math.max(0, ...depth);
}
