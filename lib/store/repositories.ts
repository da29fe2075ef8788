import { PutCommand } from '@aws-sdk/lib-dynamodb';
import type { RepositoryConnection } from '../domain/repositories.js';
import { ddb, tableName } from './client.js';
import { itemPresent } from './conditions.js';
import { keys, prefixes, withoutKeys } from './keys.js';
import { getOne, queryAll, type Item } from './read.js';
import type { OnConditionFailed, WriteItem } from './transact.js';

/**
 * Repository connections in their organisation's partition (`SK=REPOSITORY#<connection>`): written
 * by the operator CLI, read by repository evidence links and their link options.
 */
export const toRepositoryConnection = (item: Item): RepositoryConnection => withoutKeys(item) as unknown as RepositoryConnection;

/** Creates the connection, or replaces the one with the same id. */
export async function putRepositoryConnection(connection: RepositoryConnection): Promise<void> {
  await ddb().send(
    new PutCommand({
      TableName: tableName(),
      Item: { ...keys.repositoryConnection(connection.organisation_id, connection.id), entity: 'repository-connection', ...connection },
    }),
  );
}

export async function getRepositoryConnection(organisationId: string, connectionId: string): Promise<RepositoryConnection | undefined> {
  const item = await getOne(keys.repositoryConnection(organisationId, connectionId));
  return item ? toRepositoryConnection(item) : undefined;
}

/** Every connection of the organisation, oldest first when their IDs are ULIDs: a handful, configured by an operator. */
export async function listRepositoryConnections(organisationId: string): Promise<RepositoryConnection[]> {
  const items = await queryAll({
    KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
    ExpressionAttributeValues: { ':pk': keys.organisation(organisationId).PK, ':prefix': prefixes.repositoryConnection },
    ConsistentRead: true,
  });
  return items.map(toRepositoryConnection);
}

/** The connection still there when a write that names it lands. */
export function connectionStillExists(organisationId: string, connectionId: string, onGone: OnConditionFailed): WriteItem {
  return { kind: 'check', key: keys.repositoryConnection(organisationId, connectionId), condition: itemPresent(), onConditionFailed: onGone };
}
