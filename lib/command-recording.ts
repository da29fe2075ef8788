import { AsyncLocalStorage } from 'node:async_hooks';
import type { InitializeHandler, InitializeHandlerArguments, InitializeHandlerOutput, MiddlewareStack } from '@smithy/types';

/**
 * Which AWS commands each Lambda function issues, recorded while the integration and API tests
 * run, so that the CDK grants derive from what the code does (infra/recorded-commands.json).
 * A function is named by its entry module under functions/ (`http/controls`, `workers/populate`).
 * Outside a test run nothing is recorded and no scope is opened.
 */

/** Recorded commands of each function: "dynamodb:Query" -> the resources it touched ("table", "index/GSI1"). */
export type CommandManifest = Record<string, Record<string, string[]>>;

/** One command as issued: `command` is "service:Name", `resource` the table part, S3 area or queue. */
export interface IssuedCommand {
  command: string;
  resource: string;
}

interface Scope {
  fn: string;
}

const scope = new AsyncLocalStorage<Scope>();
let recorded: Map<string, Map<string, Set<string>>> | undefined;

/** Starts recording in this process afresh (the test setup does, for each test file; nothing else should). */
export function startRecording(): void {
  recorded = new Map();
}

/** Runs a function's entry point with what it issues attributed to `fn`. */
export function runAsFunction<T>(fn: string, body: () => T): T {
  return recorded ? scope.run({ fn }, body) : body();
}

/** Names the function of the current scope once it is known (an HTTP request, after routing). */
export function attributeTo(fn: string): void {
  const current = scope.getStore();
  if (current) current.fn = fn;
}

export function recordCommands(issued: readonly IssuedCommand[]): void {
  const current = scope.getStore();
  if (!current || !recorded) return;
  let commands = recorded.get(current.fn);
  if (!commands) recorded.set(current.fn, (commands = new Map()));
  for (const { command, resource } of issued) {
    let resources = commands.get(command);
    if (!resources) commands.set(command, (resources = new Set()));
    resources.add(resource);
  }
}

/** What was recorded so far, sorted, in the manifest's shape. */
export function recordedCommands(): CommandManifest {
  const manifest: CommandManifest = {};
  for (const [fn, commands] of recorded ?? []) manifest[fn] = Object.fromEntries([...commands].map(([command, resources]) => [command, [...resources]]));
  return sortedManifest(manifest);
}

export function sortedManifest(manifest: CommandManifest): CommandManifest {
  const sortedEntries = <V>(o: Record<string, V>) => Object.entries(o).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return Object.fromEntries(
    sortedEntries(manifest).map(([fn, commands]) => [fn, Object.fromEntries(sortedEntries(commands).map(([c, r]) => [c, [...new Set(r)].sort()]))]),
  );
}

export type Describe = (command: string, input: Record<string, unknown>) => IssuedCommand[];

/**
 * A DynamoDB command on the table or the index it queries. A transaction is recorded item by item
 * (`TransactWriteItems/Put`...), because DynamoDB authorizes each item by its own action.
 */
export const describeDynamoDb: Describe = (command, input) => {
  const items = input.TransactItems;
  if (Array.isArray(items)) return items.map((item: object) => ({ command: `dynamodb:${command}/${Object.keys(item)[0]}`, resource: 'table' }));
  return [{ command: `dynamodb:${command}`, resource: typeof input.IndexName === 'string' ? `index/${input.IndexName}` : 'table' }];
};

/** The area of an object key (`files/`), the unit S3 grants are scoped by; a key at the root stands for itself. */
export const areaOf = (key: string) => (key.includes('/') ? key.slice(0, key.indexOf('/') + 1) : key);

/** An S3 command on the area of its key; a copy names both areas (`quarantine/ -> files/`). */
export const describeS3: Describe = (command, input) => {
  if (typeof input.CopySource === 'string') {
    const source = decodeURIComponent(input.CopySource.replace(/^\//, ''));
    return [{ command: `s3:${command}`, resource: `${areaOf(source.slice(source.indexOf('/') + 1))} -> ${areaOf(String(input.Key))}` }];
  }
  return [{ command: `s3:${command}`, resource: typeof input.Key === 'string' ? areaOf(input.Key) : 'bucket' }];
};

/**
 * Adds the recording to an SDK client: at the initialize step, so that a command is recorded once
 * whatever its retries, and in the caller's async context, which carries the function's scope.
 */
export function addCommandRecording<I extends object, O extends object>(stack: MiddlewareStack<I, O>, describe: Describe): void {
  stack.add(
    (next: InitializeHandler<I, O>, context) =>
      async (args: InitializeHandlerArguments<I>): Promise<InitializeHandlerOutput<O>> => {
        if (scope.getStore() && recorded)
          recordCommands(describe((context.commandName ?? 'unknown').replace(/Command$/, ''), args.input as Record<string, unknown>));
        return next(args);
      },
    { step: 'initialize', name: 'commandRecording' },
  );
}
