import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { ddb, tableName } from './client.js';
import { conditionFields, setFields, type Condition } from './conditions.js';
import type { Key } from './keys.js';

/**
 * One conditional UpdateItem that sets plain fields (no transaction: one item, one write unit).
 * Answers false when the condition does not hold, so callers decide what a lost race means.
 */
export async function updateIf(key: Key, fields: Record<string, unknown>, condition: Condition): Promise<boolean> {
  const set = setFields(fields);
  try {
    await ddb().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: key,
        UpdateExpression: set.expression,
        ...conditionFields(condition),
        ExpressionAttributeNames: { ...set.names, ...condition.names },
        ExpressionAttributeValues: { ...set.values, ...condition.values },
      }),
    );
    return true;
  } catch (error) {
    if ((error as Error).name === 'ConditionalCheckFailedException') return false;
    throw error;
  }
}
