import { describe, expect, it } from 'vitest';
import { route } from '../../../../lib/http/middlewares/route.js';
import { OPERATIONS } from '../../../../lib/operations/registry.js';
import { createRouter } from '../../../../lib/operations/kernel/router.js';
import { pipelineRequest, thrownBy } from '../../../support/pipeline.js';

const step = route(createRouter(OPERATIONS));

describe('route step', () => {
  it('records the operation and raw path parameters', async () => {
    const request = pipelineRequest({ path: '/api/v1/organisations/01ARZ3NDEKTSV4RRFFQ69G5FAV' });
    await step.before!(request);
    expect(request.state.operation?.id).toBe('getOrganisation');
    expect(request.state.rawParams).toEqual({ organisation: '01ARZ3NDEKTSV4RRFFQ69G5FAV' });
  });

  it('throws 404 for an unknown path', async () => {
    expect(await thrownBy(() => step.before!(pipelineRequest({ path: '/api/v1/nothing' })))).toMatchObject({ status: 404, code: 'not_found' });
  });

  it('throws 405 with Allow for another method', async () => {
    expect(await thrownBy(() => step.before!(pipelineRequest({ method: 'PUT' })))).toEqual({
      status: 405,
      code: 'method_not_allowed',
      headers: { Allow: 'GET, HEAD, POST' },
    });
  });
});
