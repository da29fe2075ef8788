import { DeleteCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { ddb, tableName } from './client.js';
import { conditionFields, setFields, type Condition } from './conditions.js';
import type { Key } from './keys.js';
import type { Item } from './read.js';

/** The one test for a single-item write whose condition did not hold (transactions report theirs per item). */
export const isConditionalCheckFailed = (error: unknown): boolean => (error as Error | undefined)?.name === 'ConditionalCheckFailedException';

/** Runs a conditional write; false when its condition did not hold, any other failure thrown. */
async function conditionally(write: () => Promise<unknown>): Promise<boolean> {
  try {
    await write();
    return true;
  } catch (error) {
    if (isConditionalCheckFailed(error)) return false;
    throw error;
  }
}

/** One PutItem, unconditional or guarded by `condition` (then false when it does not hold). */
export const putItem = (item: Key & Record<string, unknown>, condition?: Condition): Promise<boolean> =>
  conditionally(() => ddb().send(new PutCommand({ TableName: tableName(), Item: item, ...conditionFields(condition) })));

/** One DeleteItem guarded by `condition`; false when it does not hold. */
export const deleteIf = (key: Key, condition: Condition): Promise<boolean> =>
  conditionally(() => ddb().send(new DeleteCommand({ TableName: tableName(), Key: key, ...conditionFields(condition) })));

/**
 * One conditional UpdateItem of hand-written SET/ADD/REMOVE clauses that answers the item as it is
 * after the write, or undefined when the condition did not hold: for writers that decide their
 * next step from what concurrent writers left in the item.
 */
export async function updateReturning(
  w: { key: Key; update: string; names: Record<string, string>; values: Record<string, unknown> },
  condition: Condition,
): Promise<Item | undefined> {
  let after: Item | undefined;
  const written = await conditionally(async () => {
    const out = await ddb().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: w.key,
        UpdateExpression: w.update,
        ConditionExpression: condition.expression,
        ExpressionAttributeNames: { ...w.names, ...condition.names },
        ExpressionAttributeValues: { ...w.values, ...condition.values },
        ReturnValues: 'ALL_NEW',
      }),
    );
    after = out.Attributes as Item;
  });
  return written ? after : undefined;
}

/**
 * One conditional UpdateItem that sets plain fields and removes others (no transaction: one item,
 * one write unit). Answers false when the condition does not hold, so callers decide what a lost
 * race means.
 */
export async function updateIf(key: Key, fields: Record<string, unknown>, condition: Condition, remove: readonly string[] = []): Promise<boolean> {
  const set = Object.keys(fields).length ? setFields(fields) : { expression: '', names: {}, values: {} };
  const removed = Object.fromEntries(remove.map((name, i) => [`#rm${i}`, name]));
  const removal = remove.length ? `REMOVE ${Object.keys(removed).join(', ')}` : '';
  const values = { ...set.values, ...condition.values };
  return conditionally(() =>
    ddb().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: key,
        UpdateExpression: [set.expression, removal].filter(Boolean).join(' '),
        ...conditionFields(condition),
        ExpressionAttributeNames: { ...set.names, ...removed, ...condition.names },
        ...(Object.keys(values).length ? { ExpressionAttributeValues: values } : {}),
      }),
    ),
  );
}

/**
 * An unconditional update (ADD, DELETE or SET expressions) as one UpdateItem: outside a
 * transaction it costs half the write units, and concurrent writers of the item never conflict.
 */
export async function applyUpdate(w: { key: Key; update: string; names: Record<string, string>; values: Record<string, unknown> }): Promise<void> {
  await ddb().send(
    new UpdateCommand({
      TableName: tableName(),
      Key: w.key,
      UpdateExpression: w.update,
      ExpressionAttributeNames: w.names,
      ExpressionAttributeValues: w.values,
    }),
  );
}
