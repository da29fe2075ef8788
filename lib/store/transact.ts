import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { TransactWriteCommand, type TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { ddb, tableName } from './client.js';
import { conditionFields, type Condition } from './conditions.js';
import type { Key } from './keys.js';
import { type Backoff, retryUntil } from './retry.js';

/** What a conditional write's failure means, decided from the item as it was (ALL_OLD). */
export type OnConditionFailed = (current: Record<string, unknown> | undefined) => Error;

export type WriteItem =
  | { kind: 'put'; item: Key & Record<string, unknown>; condition?: Condition; onConditionFailed?: OnConditionFailed }
  | {
      kind: 'update';
      key: Key;
      update: string;
      names: Record<string, string>;
      values: Record<string, unknown>;
      condition?: Condition;
      onConditionFailed?: OnConditionFailed;
    }
  | { kind: 'delete'; key: Key; condition?: Condition; onConditionFailed?: OnConditionFailed }
  | { kind: 'check'; key: Key; condition: Condition; onConditionFailed?: OnConditionFailed };

export class TransactionConflictError extends Error {
  override readonly name = 'TransactionConflictError';
}
/** DynamoDB refused a transaction item for capacity: storage is overloaded right now (the contract's 503). */
export class TransactionThrottledError extends Error {
  override readonly name = 'TransactionThrottledError';
}
export class UnmappedConditionError extends Error {
  override readonly name = 'UnmappedConditionError';
}

/** A conflict with a concurrent transaction on the same items clears as soon as that one commits. */
const CONFLICTS: Backoff = { attempts: 8, baseMs: 20, capMs: 200 };

/**
 * Writes all items in one TransactWriteItems: a resource, its receipt and its audit record land
 * together or not at all. A failed condition is answered by that item's mapper; a conflict with a
 * concurrent transaction is retried with backoff, after which the conditions decide.
 */
export async function commit(items: WriteItem[]): Promise<void> {
  if (items.length === 0) return;
  if (items.length > 100) throw new Error(`a transaction holds at most 100 items, got ${items.length}`);
  const TransactItems = items.map(toTransactItem);
  await retryUntil(
    CONFLICTS,
    async () => {
      try {
        await ddb().send(new TransactWriteCommand({ TransactItems }));
        return true;
      } catch (error) {
        if (!(error instanceof TransactionCanceledException)) throw error;
        const reasons = error.CancellationReasons ?? [];
        const failed = reasons.findIndex((r) => r.Code === 'ConditionalCheckFailed');
        if (failed >= 0) {
          const mapper = items[failed]?.onConditionFailed;
          const raw = reasons[failed]?.Item;
          const current = raw ? unmarshall(raw as Parameters<typeof unmarshall>[0]) : undefined;
          if (mapper) throw mapper(current);
          throw new UnmappedConditionError(`condition failed on transaction item ${failed}`);
        }
        if (reasons.some((r) => THROTTLING_REASONS.has(r.Code ?? ''))) throw new TransactionThrottledError('transaction throttled');
        if (reasons.some((r) => r.Code === 'TransactionConflict')) return false;
        throw error;
      }
    },
    () => new TransactionConflictError('transaction conflict persisted'),
  );
}

const THROTTLING_REASONS = new Set(['ThrottlingError', 'ProvisionedThroughputExceeded', 'RequestLimitExceeded']);

type TransactItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];

function toTransactItem(w: WriteItem): TransactItem {
  const TableName = tableName();
  const failure = w.onConditionFailed ? { ReturnValuesOnConditionCheckFailure: 'ALL_OLD' as const } : {};
  switch (w.kind) {
    case 'put':
      return { Put: { TableName, Item: w.item, ...conditionFields(w.condition), ...failure } };
    case 'delete':
      return { Delete: { TableName, Key: w.key, ...conditionFields(w.condition), ...failure } };
    case 'check':
      return { ConditionCheck: { TableName, Key: w.key, ConditionExpression: w.condition.expression, ...conditionFields(w.condition), ...failure } };
    case 'update': {
      const c = conditionFields(w.condition);
      const values = { ...w.values, ...c.ExpressionAttributeValues };
      return {
        Update: {
          TableName,
          Key: w.key,
          UpdateExpression: w.update,
          ...(c.ConditionExpression ? { ConditionExpression: c.ConditionExpression } : {}),
          ExpressionAttributeNames: { ...w.names, ...c.ExpressionAttributeNames },
          ...(Object.keys(values).length ? { ExpressionAttributeValues: values } : {}),
          ...failure,
        },
      };
    }
  }
}
