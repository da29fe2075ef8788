import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import {
  DescribeStreamCommand,
  DynamoDBStreamsClient,
  ExpiredIteratorException,
  GetRecordsCommand,
  GetShardIteratorCommand,
  type GetRecordsCommandOutput,
  type Shard,
} from '@aws-sdk/client-dynamodb-streams';
import type { DynamoDBRecord } from 'aws-lambda';
import { withoutSdkLogging } from '../sdk-logging.js';
import { dynamoDbEndpoint } from '../store/client.js';
import { tableStreamArn } from '../store/schema.js';
import { relayRecords } from './dispatch.js';

/** Where each shard was read up to: its last sequence number handed to the dispatcher. */
interface Position {
  stream: string;
  shards: Record<string, string>;
}

export interface StreamReader {
  /** Hands every record past the position to the dispatcher, in order; returns how many jobs it sent. */
  read: () => Promise<number>;
  /** Whether the last read stopped before the stream's end (at a job it could not send, or an iterator that expired): the next read goes on from there. */
  behind: () => boolean;
  /**
   * Persists the position read so far once `idle` says every job dispatched up to it has ended:
   * the local queues live in memory, so a message dispatched but not yet worked is dispatched
   * again after a restart, and each job leaves a job that has moved on alone.
   */
  checkpoint: (idle: () => Promise<boolean>) => Promise<void>;
}

function streamsClient(): DynamoDBStreamsClient {
  const client = new DynamoDBStreamsClient(dynamoDbEndpoint());
  withoutSdkLogging(client.middlewareStack);
  return client;
}

function savedPosition(file: string | undefined, stream: string): Position {
  if (file && existsSync(file)) {
    const saved = JSON.parse(readFileSync(file, 'utf8')) as Position;
    // A stream enabled again (a table created anew) starts from its beginning.
    if (saved.stream === stream) return saved;
  }
  return { stream, shards: {} };
}

const SHARDS_TTL_MS = 30_000;

/** Parents before children: a key's older changes are in the shard its newer shard split from. */
const inOrder = (shards: Shard[]) =>
  [...shards].sort((a, b) =>
    BigInt(a.SequenceNumberRange?.StartingSequenceNumber ?? '0') < BigInt(b.SequenceNumberRange?.StartingSequenceNumber ?? '0') ? -1 : 1,
  );

/**
 * The local stand-in for Lambda's DynamoDB stream event source mapping: reads the table's stream
 * (DynamoDB Local keeps it with the table under -dbPath, across restarts) and calls the same
 * dispatcher the CDK app maps the stream to, from a position kept in `positionFile`.
 */
export async function openStream(options: { positionFile?: string } = {}): Promise<StreamReader> {
  const stream = await tableStreamArn();
  const client = streamsClient();
  const read: Position = savedPosition(options.positionFile, stream);
  let saved = JSON.stringify(read.shards);
  const iterators = new Map<string, string | null>();
  let stopped = false;

  async function iteratorOf(shardId: string): Promise<string | undefined> {
    const known = iterators.get(shardId);
    if (known !== undefined) return known ?? undefined;
    const after = read.shards[shardId];
    const out = await client.send(
      new GetShardIteratorCommand({
        StreamArn: stream,
        ShardId: shardId,
        ...(after ? { ShardIteratorType: 'AFTER_SEQUENCE_NUMBER', SequenceNumber: after } : { ShardIteratorType: 'TRIM_HORIZON' }),
      }),
    );
    return out.ShardIterator;
  }

  async function readShard(shardId: string): Promise<number> {
    if (iterators.get(shardId) === null) return 0;
    let sent = 0;
    let iterator = await iteratorOf(shardId);
    while (iterator) {
      let out: GetRecordsCommandOutput;
      try {
        out = await client.send(new GetRecordsCommand({ ShardIterator: iterator }));
      } catch (error) {
        if (!(error instanceof ExpiredIteratorException)) throw error;
        stopped = true;
        iterators.delete(shardId);
        return sent;
      }
      // One record typed twice: the Streams SDK's and the Lambda event's differ in their AttributeValue and timestamp types, not in what arrives.
      const records = (out.Records ?? []) as unknown as DynamoDBRecord[];
      if (records.length === 0) {
        // A closed shard read to its end has no next iterator: nothing more will come from it.
        iterators.set(shardId, out.NextShardIterator ?? null);
        if (!out.NextShardIterator) shards = undefined;
        return sent;
      }
      const relayed = await relayRecords(records);
      const failed = relayed.failedAt;
      const done = failed
        ? records.slice(
            0,
            records.findIndex((r) => r.dynamodb?.SequenceNumber === failed),
          )
        : records;
      sent += relayed.sent;
      const last = done.at(-1)?.dynamodb?.SequenceNumber;
      if (last) read.shards[shardId] = last;
      if (failed) {
        // Retried from the failed record at the next read, as the mapping retries a failed batch.
        stopped = true;
        iterators.delete(shardId);
        return sent;
      }
      iterator = out.NextShardIterator;
    }
    iterators.set(shardId, null);
    shards = undefined;
    return sent;
  }

  // The shard list changes only when a shard closes: it is described again then, and at least every SHARDS_TTL_MS.
  let shards: Shard[] | undefined;
  let describedAt = 0;
  async function shardList(): Promise<Shard[]> {
    if (shards && Date.now() - describedAt < SHARDS_TTL_MS) return shards;
    const found: Shard[] = [];
    let start: string | undefined;
    do {
      const out = await client.send(new DescribeStreamCommand({ StreamArn: stream, ExclusiveStartShardId: start }));
      found.push(...(out.StreamDescription?.Shards ?? []));
      start = out.StreamDescription?.LastEvaluatedShardId;
    } while (start);
    describedAt = Date.now();
    shards = inOrder(found);
    return shards;
  }

  async function readAll(): Promise<number> {
    stopped = false;
    let sent = 0;
    for (const shard of await shardList()) sent += await readShard(shard.ShardId!);
    return sent;
  }

  // One read at a time: a test's drain runs beside the background loop, and two reads of one iterator would dispatch twice.
  let reading: Promise<unknown> = Promise.resolve();
  return {
    read: () => {
      const next = reading.then(readAll);
      reading = next.catch(() => undefined);
      return next;
    },
    behind: () => stopped,
    checkpoint: async (idle) => {
      const file = options.positionFile;
      const snapshot = JSON.stringify(read.shards);
      if (!file || snapshot === saved || !(await idle())) return;
      writeFileSync(`${file}.tmp`, JSON.stringify({ stream, shards: JSON.parse(snapshot) }));
      renameSync(`${file}.tmp`, file);
      saved = snapshot;
    },
  };
}
