import { areaOf } from '../lib/command-recording.js';

/**
 * What IAM must allow for each recorded command (infra/recorded-commands.json): the grants of a
 * function are derived from the commands it issued, never listed by hand.
 */
export type ResourceRef =
  | { kind: 'table' }
  | { kind: 'index'; name: string }
  | { kind: 'objects'; area: string }
  | { kind: 'bucket' }
  | { kind: 'queue'; name: string };

export interface Permission {
  action: string;
  resource: ResourceRef;
}

/**
 * What an SQS event source mapping grants its function by itself (CDK's SqsEventSource calls
 * grantConsumeMessages): a worker's calls on its own queue among these need no grant of ours.
 */
export const EVENT_SOURCE_ACTIONS = [
  'sqs:ChangeMessageVisibility',
  'sqs:DeleteMessage',
  'sqs:GetQueueAttributes',
  'sqs:GetQueueUrl',
  'sqs:ReceiveMessage',
] as const;

export class UnmappedCommandError extends Error {
  override readonly name = 'UnmappedCommandError';
  constructor(command: string) {
    super(`no IAM action is known for the recorded command ${command}: add it to infra/grants.ts`);
  }
}

/** DynamoDB authorizes each item of a transaction by the action of its kind. */
const TRANSACTION_ITEMS: Record<string, string> = {
  'TransactWriteItems/Put': 'PutItem',
  'TransactWriteItems/Update': 'UpdateItem',
  'TransactWriteItems/Delete': 'DeleteItem',
  'TransactWriteItems/ConditionCheck': 'ConditionCheckItem',
  'TransactGetItems/Get': 'GetItem',
};
const DYNAMODB_SAME_NAME = new Set(['GetItem', 'BatchGetItem', 'Query', 'Scan', 'PutItem', 'UpdateItem', 'DeleteItem', 'BatchWriteItem']);
const SQS_SAME_NAME = new Set(['SendMessage', ...EVENT_SOURCE_ACTIONS.map((a) => a.slice('sqs:'.length))]);

function dynamoDb(name: string, resource: string): Permission[] {
  const target: ResourceRef = resource.startsWith('index/') ? { kind: 'index', name: resource.slice('index/'.length) } : { kind: 'table' };
  const action = TRANSACTION_ITEMS[name] ?? (DYNAMODB_SAME_NAME.has(name) ? name : undefined);
  if (!action) throw new UnmappedCommandError(`dynamodb:${name}`);
  return [{ action: `dynamodb:${action}`, resource: target }];
}

/**
 * Reading a key the code may find missing needs ListBucket too: without it S3 answers 403, not
 * 404, and the storage layer could not tell a missing object from a refusal.
 */
function s3(name: string, resource: string): Permission[] {
  const objects = (area: string): ResourceRef => ({ kind: 'objects', area: areaOf(area) });
  switch (name) {
    case 'GetObject':
    case 'HeadObject':
      return [
        { action: 's3:GetObject', resource: objects(resource) },
        { action: 's3:ListBucket', resource: { kind: 'bucket' } },
      ];
    case 'PutObject':
    case 'PresignedPost':
    // A multipart upload is authorised part by part as PutObject.
    case 'CreateMultipartUpload':
    case 'UploadPart':
    case 'CompleteMultipartUpload':
      return [{ action: 's3:PutObject', resource: objects(resource) }];
    case 'AbortMultipartUpload':
      return [{ action: 's3:AbortMultipartUpload', resource: objects(resource) }];
    case 'DeleteObject':
      return [{ action: 's3:DeleteObject', resource: objects(resource) }];
    case 'CopyObject': {
      const [source, target] = resource.split(' -> ');
      if (!source || !target) throw new Error(`a recorded copy names its source and target areas, got "${resource}"`);
      // A scan's release copies a quarantine object that a duplicate delivery may have removed.
      return [
        { action: 's3:GetObject', resource: objects(source) },
        { action: 's3:ListBucket', resource: { kind: 'bucket' } },
        { action: 's3:PutObject', resource: objects(target) },
      ];
    }
    case 'ListObjectsV2':
      return [{ action: 's3:ListBucket', resource: { kind: 'bucket' } }];
    default:
      throw new UnmappedCommandError(`s3:${name}`);
  }
}

function sqs(name: string, resource: string): Permission[] {
  if (!SQS_SAME_NAME.has(name)) throw new UnmappedCommandError(`sqs:${name}`);
  return [{ action: `sqs:${name}`, resource: { kind: 'queue', name: resource } }];
}

/** The permissions one recorded command needs on one recorded resource. */
export function permissionsOf(command: string, resource: string): Permission[] {
  const colon = command.indexOf(':');
  const service = command.slice(0, colon);
  const name = command.slice(colon + 1);
  if (service === 'dynamodb') return dynamoDb(name, resource);
  if (service === 's3') return s3(name, resource);
  if (service === 'sqs') return sqs(name, resource);
  throw new UnmappedCommandError(command);
}

export const resourceKey = (r: ResourceRef): string =>
  r.kind === 'table' || r.kind === 'bucket' ? r.kind : `${r.kind}:${r.kind === 'index' ? r.name : r.kind === 'objects' ? r.area : r.name}`;

/**
 * Every permission a function's recorded commands need, once each, sorted; without those its
 * event source mapping grants on `consumes` (the queue it is fed from).
 */
export function permissionsOfCommands(commands: Record<string, string[]>, consumes?: string): Permission[] {
  const all = new Map<string, Permission>();
  for (const [command, resources] of Object.entries(commands))
    for (const resource of resources)
      for (const p of permissionsOf(command, resource)) {
        const fromEventSource = p.resource.kind === 'queue' && p.resource.name === consumes && (EVENT_SOURCE_ACTIONS as readonly string[]).includes(p.action);
        if (!fromEventSource) all.set(`${p.action} ${resourceKey(p.resource)}`, p);
      }
  return [...all].sort(([a], [b]) => (a < b ? -1 : 1)).map(([, p]) => p);
}
