import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { ddb, tableName } from './client.js';
import { conditionFields, setFields, type Condition } from './conditions.js';
import type { Key } from './keys.js';

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
  try {
    await ddb().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: key,
        UpdateExpression: [set.expression, removal].filter(Boolean).join(' '),
        ...conditionFields(condition),
        ExpressionAttributeNames: { ...set.names, ...removed, ...condition.names },
        ...(Object.keys(values).length ? { ExpressionAttributeValues: values } : {}),
      }),
    );
    return true;
  } catch (error) {
    if ((error as Error).name === 'ConditionalCheckFailedException') return false;
    throw error;
  }
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
