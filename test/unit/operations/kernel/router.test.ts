import { describe, expect, it } from 'vitest';
import { createRouter } from '../../../../lib/operations/kernel/router.js';
import { OPERATIONS } from '../../../../lib/operations/registry.js';

const router = createRouter(OPERATIONS);

describe('router', () => {
  it('finds an operation and its path parameters', () => {
    const m = router.match('GET', '/api/v1/organisations/01ARZ3NDEKTSV4RRFFQ69G5FAV');
    expect(m).toMatchObject({ kind: 'found', operation: { id: 'getOrganisation' }, params: { organisation: '01ARZ3NDEKTSV4RRFFQ69G5FAV' } });
  });

  it('reports the allowed methods of a known path, HEAD with GET', () => {
    expect(router.match('PUT', '/api/v1/organisations')).toEqual({ kind: 'wrong-method', allow: ['GET', 'HEAD', 'POST'] });
  });

  it('answers HEAD with the GET operation', () => {
    expect(router.match('HEAD', '/api/v1/organisations/01ARZ3NDEKTSV4RRFFQ69G5FAV')).toMatchObject({ kind: 'found', operation: { id: 'getOrganisation' } });
  });

  it('takes no HEAD where there is no GET', () => {
    expect(router.match('HEAD', '/api/v1/organisations/01ARZ3NDEKTSV4RRFFQ69G5FAV/logo/upload-sessions').kind).toBe('wrong-method');
  });

  it.each(['/api/v1/organisations/', '/organisations', '/api/v2/organisations', '/api/v1/organisations/a/b'])('knows nothing at %s', (path) => {
    expect(router.match('GET', path).kind).toBe('unknown');
  });

  it('treats a malformed percent-encoding as unknown rather than failing', () => {
    expect(router.match('GET', '/api/v1/organisations/%E0%A4%A').kind).toBe('unknown');
  });

  it('refuses two declarations of one method and path', () => {
    expect(() => createRouter([OPERATIONS[0]!, OPERATIONS[0]!])).toThrow(/two operations/);
  });
});
