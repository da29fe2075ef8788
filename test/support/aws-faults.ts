import { AsyncLocalStorage } from 'node:async_hooks';
import { s3 } from '../../lib/files/s3.js';
import { sqs } from '../../lib/queues/sqs.js';
import { ddb } from '../../lib/store/client.js';
import type { Key } from '../../lib/store/keys.js';

/**
 * Faults for integration tests, put into the middleware of this file's DynamoDB, S3 and SQS clients
 * rather than into a mocked lib module: the test files of a worker share its modules
 * (vitest.config.ts), and a module mock would outlive its file, while the clients are forgotten at
 * each file's end (test/support/restore-env.ts).
 */

/**
 * One command as a fault sees it: the command's name without "Command", and its input as the
 * caller built it (the document client marshals DynamoDB items and keys after this point, so they
 * are plain values here).
 */
export interface AwsRequest {
  service: 'dynamodb' | 's3' | 'sqs';
  command: string;
  input: any;
}

/** Decides what becomes of one command: send it (`send`), act before or after that, throw instead, or never return. */
export type Intercept = (request: AwsRequest, send: () => Promise<unknown>) => Promise<unknown>;

interface Stack {
  add(middleware: unknown, options: { step: 'initialize'; priority: 'high'; name: string }): void;
  remove(name: string): boolean;
}

let installed = 0;

/** Puts `intercept` in front of every command this file's DynamoDB, S3 and SQS clients send, until the returned function is called. */
export async function interceptAws(intercept: Intercept): Promise<() => void> {
  const name = `testIntercept${++installed}`;
  const stacks = [
    ['dynamodb', ddb().middlewareStack],
    ['s3', (await s3()).client.middlewareStack],
    ['sqs', sqs().middlewareStack],
  ] as [AwsRequest['service'], Stack][];
  for (const [service, stack] of stacks)
    stack.add(
      (next: (args: { input: unknown }) => Promise<unknown>, context: { commandName?: string }) => (args: { input: unknown }) =>
        intercept({ service, command: (context.commandName ?? '').replace(/Command$/, ''), input: args.input }, () => next(args)),
      { step: 'initialize', priority: 'high', name },
    );
  return () => {
    for (const [, stack] of stacks) stack.remove(name);
  };
}

const worker = new AsyncLocalStorage<symbol>();

/**
 * Runs `job` as a worker that dies at the first command of its own for which `at` holds: that
 * command and every later one the worker sends never return, so nothing after it runs (no catch,
 * no final write), as when its process dies. Resolves once it has died; the test's own commands,
 * and those of a later delivery, go through. Fails when the job ends without reaching `at`.
 */
export async function diedAt(job: () => Promise<unknown>, at: (request: AwsRequest) => boolean): Promise<void> {
  const self = Symbol('worker');
  let dead = false;
  let died!: () => void;
  const death = new Promise<void>((resolve) => (died = resolve));
  // Never removed: whatever the dead worker would still send must hang too (the clients go at the file's end).
  await interceptAws((request, send) => {
    if (worker.getStore() !== self || (!dead && !at(request))) return send();
    dead = true;
    died();
    return new Promise<never>(() => {});
  });
  const ended = worker.run(self, job).then(() => {
    throw new Error('the worker ended without reaching the command it was to die at');
  });
  await Promise.race([death, ended]);
}

/** Holds for the `n`th request for which `when` holds. */
export function nth(n: number, when: (request: AwsRequest) => boolean): (request: AwsRequest) => boolean {
  let seen = 0;
  return (request) => when(request) && ++seen === n;
}

/** The keys of the items a DynamoDB write command puts, updates, deletes or checks. */
export function writtenKeys({ command, input }: AwsRequest): Key[] {
  switch (command) {
    case 'TransactWriteItems':
      return (input.TransactItems as any[]).map((t) => t.Put?.Item ?? (t.Update ?? t.Delete ?? t.ConditionCheck).Key);
    case 'BatchWriteItem':
      return (Object.values(input.RequestItems).flat() as any[]).map((r) => r.PutRequest?.Item ?? r.DeleteRequest.Key);
    case 'PutItem':
      return [input.Item];
    case 'UpdateItem':
    case 'DeleteItem':
      return [input.Key];
    default:
      return [];
  }
}

/** A transaction that writes an item with sort key `sk`. */
export const transactionTouching =
  (sk: string) =>
  (request: AwsRequest): boolean =>
    request.command === 'TransactWriteItems' && writtenKeys(request).some((k) => k.SK === sk);

/** A BatchWriteItem that writes an item of the partition `pk`. */
export const batchWriteTo =
  (pk: string) =>
  (request: AwsRequest): boolean =>
    request.command === 'BatchWriteItem' && writtenKeys(request).some((k) => k.PK === pk);

/** The BatchWriteItems that come once earlier ones have carried `n` items: the second of a job's bulk writes of `n` items each. */
export function batchWritesAfter(n: number): (request: AwsRequest) => boolean {
  let carried = 0;
  return (request) => {
    if (request.command !== 'BatchWriteItem') return false;
    const before = carried;
    carried += writtenKeys(request).length;
    return before >= n;
  };
}

/**
 * Runs `before` just before, and `after` just after, the next Query of the partition (or index
 * partition) `pk`, once: another writer landing between a reader's query and what it does next.
 */
export function aroundNextQuery(pk: string, acts: { before?: () => Promise<unknown>; after?: () => Promise<unknown> }): Promise<() => void> {
  let done = false;
  return interceptAws(async (request, send) => {
    if (done || request.command !== 'Query' || request.input.ExpressionAttributeValues?.[':pk'] !== pk) return send();
    done = true;
    await acts.before?.();
    const out = await send();
    await acts.after?.();
    return out;
  });
}
