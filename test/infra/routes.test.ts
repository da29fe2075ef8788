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

  it("sends each passkey ceremony to the passkeys function, and every other console path and method to the console's", () => {
    const pagePaths = new Set(consolePages.routes.map((r) => r.path));
    const [shared, own] = [passkeyCeremonies.routes.filter((r) => pagePaths.has(r.path)), passkeyCeremonies.routes.filter((r) => !pagePaths.has(r.path))];
    const expected = [
      'ANY /console -> console',
      'ANY /console/{proxy+} -> console',
      // A path only ceremonies use is the passkeys function's whole; it answers other methods 405.
      ...own.map((r) => `ANY /console${r.path} -> passkeys`),
      // Where the console serves a page on the same path, the ceremony takes its method alone.
      ...shared.flatMap((r) => [`${r.method} /console${r.path} -> passkeys`, `ANY /console${r.path} -> console`]),
    ];
    const actual = routes.filter((r) => r.path === '/console' || r.path.startsWith('/console/')).map((r) => `${r.method} ${r.path} -> ${r.target}`);
    expect(new Set(actual)).toEqual(new Set(expected));
    expect(actual).toContain('POST /console/sign-in -> passkeys');
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
