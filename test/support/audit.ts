import { queryAll } from '../../lib/store/read.js';

/** The audit records of a scope (an organisation id or 'installation') for today. */
export async function auditRecords(scope: string) {
  const day = new Date().toISOString().slice(0, 10);
  return queryAll({ KeyConditionExpression: 'PK = :pk', ExpressionAttributeValues: { ':pk': `AUDIT#${scope}#${day}` } });
}
