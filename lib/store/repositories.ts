import { DeleteCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod';
import { REPOSITORY_PROVIDERS, type RepositoryConnection } from '../domain/repositories.js';
import { ddb, tableName } from './client.js';
import { itemAbsent, itemPresent } from './conditions.js';
import { parseStored, storedSchema } from './entity.js';
import { keys, prefixes } from './keys.js';
import { getOne, queryCollection, type Item } from './read.js';
import type { OnConditionFailed, WriteItem } from './transact.js';
import { once } from '../domain/validation.js';

/**
 * Repository connections live in their organisation's partition (PK ORG#<org>, SK REPOSITORY#<id>):
 * written by the operator CLI; one GetItem or ConditionCheck for the link that names one, one
 * Query for the operator's list and the link options.
 */
export const connectionSchema = once(() =>
  storedSchema<RepositoryConnection>()(
    z.looseObject({
      id: z.string(),
      organisation_id: z.string(),
      provider: z.enum(REPOSITORY_PROVIDERS),
      url: z.string(),
      name: z.string(),
      created_at: z.string(),
      api_url: z.string().optional(),
      token_sealed: z.string().optional(),
    }),
  ),
);

export const toConnection = (item: Item): RepositoryConnection => parseStored(connectionSchema(), item);

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
  return (await queryCollection({ PK: keys.organisation(organisationId).PK, prefix: prefixes.repositoryConnection })).map(toConnection);
}

/** The connection as it was, or undefined when there was none; links that name it then find no connection. */
export async function deleteRepositoryConnection(organisationId: string, connectionId: string): Promise<RepositoryConnection | undefined> {
  const out = await ddb().send(
    new DeleteCommand({ TableName: tableName(), Key: keys.repositoryConnection(organisationId, connectionId), ReturnValues: 'ALL_OLD' }),
  );
  return out.Attributes ? toConnection(out.Attributes as Item) : undefined;
}

/** The connection still there when a write that names it lands. */
export function connectionStillExists(organisationId: string, connectionId: string, onGone: OnConditionFailed): WriteItem {
  return { kind: 'check', key: keys.repositoryConnection(organisationId, connectionId), condition: itemPresent(), onConditionFailed: onGone };
}
