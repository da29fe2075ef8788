import { DeleteCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import type { RepositoryConnection } from '../domain/repositories.js';
import { ddb, tableName } from './client.js';
import { itemAbsent } from './conditions.js';
import { keys, withoutKeys } from './keys.js';
import { getOne, queryCollection, type Item } from './read.js';

/**
 * Repository connections live in their organisation's partition (PK ORG#<org>, SK REPOSITORY#<id>):
 * one GetItem for the link that names one, one Query for the operator's list.
 */
const toConnection = (item: Item): RepositoryConnection => withoutKeys(item) as unknown as RepositoryConnection;

export async function putRepositoryConnection(c: RepositoryConnection): Promise<void> {
  const absent = itemAbsent();
  await ddb().send(
    new PutCommand({
      TableName: tableName(),
      Item: { ...keys.repositoryConnection(c.organisation_id, c.id), entity: 'repository-connection', ...c },
      ConditionExpression: absent.expression,
      ExpressionAttributeNames: absent.names,
    }),
  );
}

export async function getRepositoryConnection(organisationId: string, connectionId: string): Promise<RepositoryConnection | undefined> {
  const item = await getOne(keys.repositoryConnection(organisationId, connectionId));
  return item ? toConnection(item) : undefined;
}

export async function listRepositoryConnections(organisationId: string): Promise<RepositoryConnection[]> {
  const { PK, SK: prefix } = keys.repositoryConnection(organisationId, '');
  return (await queryCollection({ PK, prefix })).map(toConnection);
}

/** The connection as it was, or undefined when there was none; links that name it then find no connection. */
export async function deleteRepositoryConnection(organisationId: string, connectionId: string): Promise<RepositoryConnection | undefined> {
  const out = await ddb().send(
    new DeleteCommand({ TableName: tableName(), Key: keys.repositoryConnection(organisationId, connectionId), ReturnValues: 'ALL_OLD' }),
  );
  return out.Attributes ? toConnection(out.Attributes as Item) : undefined;
}
