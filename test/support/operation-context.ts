import { parseToken } from '../../lib/auth/tokens.js';
import { permissionsOf } from '../../lib/domain/permissions.js';
import type { AnyOperation, OperationContext } from '../../lib/operations/kernel/operation.js';
import { collectionString, getMany, keyString, queryCollection, type Collection } from '../../lib/store/read.js';

/**
 * The context the pipeline would hand an operation's handler for this project credential (every
 * project permission held), read from the table now: for tests that put something between a
 * handler's reads and its writes, or look at what a handler answers before the HTTP layer.
 */
export async function operationContext(op: AnyOperation, params: Record<string, string>, token: string, ifMatch?: string): Promise<OperationContext> {
  const claims = parseToken(token)!;
  const items = await getMany(op.prefetch?.(params, claims) ?? []);
  const queried = await Promise.all((op.prefetchCollections?.(params) ?? []).map(async (c) => [collectionString(c), await queryCollection(c)] as const));
  const collections = new Map(queried);
  return {
    requestId: 'TEST',
    now: new Date(),
    caller: {
      tokenId: claims.tokenId,
      userId: claims.userId,
      type: 'project',
      projectId: params.project,
      readOnly: false,
      permissions: new Set(permissionsOf('project')),
      superUser: false,
    },
    prefetched: (k) => items.get(keyString(k)),
    prefetchedCollection: (c: Collection) => collections.get(collectionString(c))!,
    ...(ifMatch ? { ifMatch } : {}),
    page: { number: 1, size: 50 },
  };
}
