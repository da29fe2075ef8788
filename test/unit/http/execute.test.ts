import { describe, expect, it } from 'vitest';
import { newUlid } from '../../../lib/domain/ids.js';
import { execute } from '../../../lib/http/execute.js';
import { getOrganisation } from '../../../lib/operations/organisations/organisations.js';
import type { AnyOperation } from '../../../lib/operations/kernel/operation.js';
import { keys } from '../../../lib/store/keys.js';
import { newOrganisation, organisationPut } from '../../../lib/store/organisations.js';
import { keyString, type Item } from '../../../lib/store/read.js';
import { pipelineRequest } from '../../support/pipeline.js';

const organisationId = newUlid();
const caller = {
  tokenId: newUlid(),
  userId: newUlid(),
  type: 'organisation' as const,
  organisationId,
  readOnly: false,
  permissions: new Set<string>(),
  superUser: false,
};
const organisation = organisationPut(
  newOrganisation({ id: organisationId, name: 'Acme', slug: 'acme', timezone: 'UTC', createdBy: caller.userId, now: new Date() }),
) as Item;

function request(prefetchable: string[]) {
  return pipelineRequest({
    operation: getOrganisation as unknown as AnyOperation,
    state: {
      caller: caller as never,
      items: new Map([[keyString(organisation), organisation]]),
      prefetchable: new Set(prefetchable),
      input: { params: { organisation: organisationId }, query: {}, body: undefined },
    },
  });
}

describe('execute', () => {
  it('hands the handler the items its operation declared in prefetch', async () => {
    const response = await execute(request([keyString(keys.organisation(organisationId))]));
    expect(response.statusCode).toBe(200);
  });

  it('throws when a handler asks for an item its operation did not declare in prefetch', async () => {
    await expect(execute(request([]))).rejects.toThrow(/getOrganisation reads ORG#.* without declaring it in prefetch/);
  });
});
