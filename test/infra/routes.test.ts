import { beforeAll, describe, expect, it } from 'vitest';
import { OPERATIONS, functionOf } from '../../lib/operations/registry.js';
import { API_PREFIX } from '../../lib/domain/api-paths.js';
import { passkeyCeremonies } from '../../lib/console/routes/ceremonies.js';
import { consolePages } from '../../lib/console/routes/pages.js';
import { logicalIdOf, resourcesOf, synthesize, type Resources, type Synthesized } from './fixture.js';

interface Route {
  method: string;
  path: string;
  target: string;
  integrationType: string;
}

/** Rebuilds `METHOD /full/path -> function` from the template's resource tree. */
function routesOf(s: Synthesized): Route[] {
  const resources = resourcesOf(s.apiTemplate, 'AWS::ApiGateway::Resource');
  const pathOf = (ref: unknown): string => {
    const id = (ref as { Ref?: string }).Ref;
    if (id === undefined) return '';
    const resource = resources[id];
    if (!resource) throw new Error(`unknown resource ${id}`);
    return `${pathOf(resource.Properties.ParentId)}/${String(resource.Properties.PathPart)}`;
  };
  const targets = new Map<string, string>([
    [logicalIdOf(s.api.metaFunction), 'meta'],
    [logicalIdOf(s.api.consoleFunction), 'console'],
    [logicalIdOf(s.api.passkeysFunction), 'passkeys'],
  ]);
  for (const [group, fn] of s.api.groupFunctions) targets.set(logicalIdOf(fn), group);

  const methods: Resources = resourcesOf(s.apiTemplate, 'AWS::ApiGateway::Method');
  return Object.values(methods).map(({ Properties: p }) => {
    const integration = p.Integration as { Type: string; Uri: unknown };
    const functionId = [...targets.keys()].find((id) => JSON.stringify(integration.Uri).includes(`"${id}"`));
    return {
      method: String(p.HttpMethod),
      path: pathOf(p.ResourceId) || '/',
      target: functionId ? (targets.get(functionId) ?? '?') : 'none',
      integrationType: integration.Type,
    };
  });
}

/** A declared path with a ULID for each of its parameters, as a browser would request it. */
const concrete = (path: string) => path.replace(/\{[^}]+\}/g, '01ARZ3NDEKTSV4RRFFQ69G5FAV');

/**
 * The function API Gateway (REST) invokes for a request, or 'none' for its 403: a literal child
 * before a path parameter before a greedy proxy, segment by segment, and no going back to a greedy
 * sibling once a resource has matched; then the method, or ANY.
 */
function resolve(routes: readonly Route[], method: string, path: string): string {
  const children = (parent: string) => {
    const prefix = parent === '/' ? '/' : `${parent}/`;
    return [...new Set(routes.filter((r) => r.path.startsWith(prefix) && r.path !== parent).map((r) => r.path.slice(prefix.length).split('/')[0]!))];
  };
  let at = '/';
  for (const segment of path.split('/').filter(Boolean)) {
    const next = children(at);
    const step = next.find((c) => c === segment) ?? next.find((c) => /^\{[^+]+\}$/.test(c)) ?? next.find((c) => c.endsWith('+}'));
    if (step === undefined) return 'none';
    at = at === '/' ? `/${step}` : `${at}/${step}`;
    if (step.endsWith('+}')) break;
  }
  const here = routes.filter((r) => r.path === at);
  return (here.find((r) => r.method === method) ?? here.find((r) => r.method === 'ANY'))?.target ?? 'none';
}

describe('ApiStack routes', () => {
  let routes: Route[];
  let s: Synthesized;
  beforeAll(() => {
    s = synthesize();
    routes = routesOf(s);
  }, 60_000);

  it('sends ANY on each registry path to the one function that serves its operations: its group function, or the downloads function for files', () => {
    const expected = new Set(OPERATIONS.map((op) => `ANY ${API_PREFIX}${op.path} -> ${functionOf(op)}`));
    const actual = routes.filter((r) => !['meta', 'console', 'passkeys'].includes(r.target)).map((r) => `${r.method} ${r.path} -> ${r.target}`);
    expect(new Set(actual)).toEqual(expected);
    expect(actual).toHaveLength(expected.size);
  });

  it('sends ANY on the root, a root greedy proxy and the OpenAPI path to the meta function, and nothing else', () => {
    const metaRoutes = routes.filter((r) => r.target === 'meta').map((r) => `${r.method} ${r.path}`);
    expect(new Set(metaRoutes)).toEqual(
      new Set(['ANY /', 'ANY /{proxy+}', `GET ${API_PREFIX}/openapi.json`, `HEAD ${API_PREFIX}/openapi.json`, `ANY ${API_PREFIX}/openapi.json`]),
    );
  });

  it('sends every console page and passkey ceremony, with its method, to the function that declares it', () => {
    const declared = [...consolePages.routes.map((r) => ({ ...r, fn: 'console' })), ...passkeyCeremonies.routes.map((r) => ({ ...r, fn: 'passkeys' }))];
    const reached = declared.map((r) => `${r.method} ${r.path} -> ${resolve(routes, r.method, `/console${concrete(r.path)}`)}`);
    expect(reached).toEqual(declared.map((r) => `${r.method} ${r.path} -> ${r.fn}`));
  });

  it('sends a console path no route declares, below a ceremony or not, to the console, which answers its 404 page', () => {
    const undeclared = [
      '/console/no-such-page',
      '/console/passkeys/01ARZ3NDEKTSV4RRFFQ69G5FAV/unknown',
      '/console/sign-in/elsewhere',
      '/console/sign-in/options/more',
    ];
    expect(undeclared.map((path) => resolve(routes, 'GET', path))).toEqual(undeclared.map(() => 'console'));
  });

  it('keeps the API stack well below the CloudFormation limit of 500 resources', () => {
    expect(Object.keys(s.apiTemplate.toJSON().Resources as object).length).toBeLessThan(400);
  });

  it('serves the OpenAPI document from the meta function', () => {
    expect(routes).toContainEqual(expect.objectContaining({ method: 'GET', path: `${API_PREFIX}/openapi.json`, target: 'meta' }));
  });

  it('streams the responses of the downloads function and of no other', () => {
    const methods = Object.values(resourcesOf(s.apiTemplate, 'AWS::ApiGateway::Method')).map(
      (m) => m.Properties.Integration as { ResponseTransferMode?: string; Uri: unknown },
    );
    const downloads = logicalIdOf(s.api.groupFunctions.get('downloads')!);
    for (const integration of methods) {
      const toDownloads = JSON.stringify(integration.Uri).includes(`"${downloads}"`);
      expect(integration.ResponseTransferMode === 'STREAM').toBe(toDownloads);
      if (toDownloads) expect(JSON.stringify(integration.Uri)).toContain('response-streaming-invocations');
    }
    expect(OPERATIONS.filter((op) => op.produces).every((op) => functionOf(op) === 'downloads')).toBe(true);
  });

  it('uses Lambda proxy integrations only', () => {
    expect(new Set(routes.map((r) => r.integrationType))).toEqual(new Set(['AWS_PROXY']));
    expect(routes.filter((r) => r.target === 'none')).toEqual([]);
  });
});
