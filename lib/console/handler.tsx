import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import { attributeTo, runAsFunction } from '../command-recording.js';
import { logger } from '../log.js';
import { writeAudit } from '../store/audit.js';
import type { AssetReader } from './assets.js';
import { consoleConfig, consolePath, type ConsoleConfig } from './config.js';
import { consoleRequest, formOf, problem, redirect, toResult, type ConsoleRequest, type ConsoleResponse } from './http.js';
import { ConfirmPage, ErrorPage, ReferencePage } from './pages/auth.js';
import type { PageContext } from './pages/layout.js';
import { html, matchRoute, type ConsoleFunction, type Route, type RouteContext } from './route.js';
import { csrfMatches, loadSession, recentlyConfirmed } from './session.js';

/**
 * Every page: scripts and styles from this origin only, no inline script, no framing. The
 * reference page relaxes styles alone, since Redoc writes its styles at run time.
 */
const CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";
const REFERENCE_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; font-src 'self' data:; connect-src 'self'; worker-src blob:; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";

const SECURITY_HEADERS = {
  'Content-Security-Policy': CSP,
  'X-Content-Type-Options': 'nosniff',
  // Not no-referrer: under it browsers send `Origin: null` with a form post, and sameOrigin refuses every form.
  'Referrer-Policy': 'same-origin',
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Resource-Policy': 'same-origin',
  'Permissions-Policy': 'camera=(), microphone=(), geolocation=()',
  'Strict-Transport-Security': 'max-age=31536000',
  'Cache-Control': 'no-store',
};

type Gated = Extract<Route, { gate: 'session' | 'administrator' }>;

const pageError = (ctx: PageContext, status: number, message: string, json: boolean | undefined, request: ConsoleRequest) =>
  json ? problem(status, status === 403 ? 'forbidden' : 'error', message, request) : html(<ErrorPage ctx={ctx} status={status} message={message} />, status);

/** A state change must come from a page of this origin: the Origin header says so, whatever the cookies. */
const sameOrigin = (request: ConsoleRequest, config: ConsoleConfig) => request.headers.origin === config.origin;

async function gated(route: Gated, ctx: RouteContext): Promise<ConsoleResponse> {
  const { request, config, now } = ctx;
  const signedIn = await loadSession(request, config, now);
  if (!signedIn) {
    if (route.json) return problem(401, 'signed_out', 'Your session has ended: sign in again.', request);
    return redirect(consolePath(config, '/sign-in'));
  }
  const page: PageContext = { config, signedIn };
  const sessionCtx = { ...ctx, page, signedIn, audit: { ...ctx.audit } };
  if (route.method === 'POST' && !csrfMatches(signedIn, ctx.form.get('csrf') ?? request.headers['x-csrf-token'])) {
    return pageError(page, 403, 'The form has expired: go back, reload the page and try again.', route.json, request);
  }
  if (route.gate === 'administrator' && !signedIn.installation.has('manage-users')) {
    return pageError(page, 403, 'User administration needs the manage-users permission.', route.json, request);
  }
  if (route.confirm && !recentlyConfirmed(signedIn, config, now)) {
    if (route.json) return problem(403, 'confirmation_required', `Confirm with your passkey to ${route.confirm}.`, request);
    const fields = [...ctx.form.entries()];
    return html(<ConfirmPage ctx={page} action={consolePath(config, request.path)} fields={fields} what={route.confirm} />, 403);
  }
  return route.handle(sessionCtx);
}

interface Served {
  routes: readonly Route[];
  functionOf: Map<Route, string>;
  assets: AssetReader | undefined;
}

async function respond(request: ConsoleRequest, served: Served, now: Date): Promise<ConsoleResponse> {
  const { assets } = served;
  const config = consoleConfig();
  const page: PageContext = { config };
  if (request.method === 'GET' || request.method === 'HEAD') {
    if (assets && request.path.startsWith('/assets/')) {
      const asset = await assets(request.path.slice('/assets/'.length));
      if (asset) return { status: 200, headers: { 'Content-Type': asset.type, 'Cache-Control': 'public, max-age=300' }, body: asset.body };
    }
    if (request.path === '/reference')
      return { ...html(<ReferencePage ctx={page} />), headers: { 'Content-Type': 'text/html; charset=utf-8', 'Content-Security-Policy': REFERENCE_CSP } };
  }
  const found = matchRoute(served.routes, request.method, request.path);
  if (found === undefined) return html(<ErrorPage ctx={page} status={404} message="There is no such page." />, 404);
  if (found === 'no-method') return { ...html(<ErrorPage ctx={page} status={405} message="This page does not take that method." />, 405) };
  const { route, params } = found;
  attributeTo(served.functionOf.get(route)!);
  const json = route.json;
  if (route.method === 'POST' && !sameOrigin(request, config)) {
    await writeAudit(
      {
        kind: 'CONSOLE_CROSS_ORIGIN_REFUSED',
        request_id: request.requestId,
        method: 'POST',
        route: `/console${route.path}`,
        status: 403,
        source_ip: request.sourceIp,
      },
      now,
    );
    return pageError(page, 403, 'This request did not come from a console page.', json, request);
  }
  const ctx: RouteContext = {
    request,
    config,
    now,
    params,
    form: route.method === 'POST' ? formOf(request) : new URLSearchParams(),
    page,
    audit: { request_id: request.requestId, method: request.method, route: `/console${route.path}`, source_ip: request.sourceIp },
  };
  return route.gate === 'public' ? route.handle(ctx) : gated(route, ctx);
}

/**
 * A console function: its own front door, sharing nothing with the API's pipeline (a bearer token
 * is never read here). On AWS each console function serves its own routes, the ones the gateway
 * sends it; the local runtime serves them all through one handler, each request recorded as the
 * function whose route it is. Only a function given the static files serves them.
 */
export function createConsoleHandler(
  functions: readonly ConsoleFunction[],
  assets?: AssetReader,
): (event: APIGatewayProxyEvent, context?: Context) => Promise<APIGatewayProxyResult> {
  const served: Served = {
    routes: functions.flatMap((fn) => fn.routes),
    functionOf: new Map(functions.flatMap((fn) => fn.routes.map((route) => [route, fn.name] as const))),
    assets,
  };
  return (event) =>
    runAsFunction(functions[0]!.name, async () => {
      const request = consoleRequest(event);
      let response: ConsoleResponse;
      try {
        response = await respond(request, served, new Date());
      } catch (error) {
        logger.error('console request failed', { requestId: request.requestId, error: error as Error });
        response = html(
          <ErrorPage
            ctx={{ config: consoleConfig() }}
            status={500}
            message={`Something went wrong. Quote the request id ${request.requestId} when reporting it.`}
          />,
          500,
        );
      }
      const result = toResult(response, request.requestId, SECURITY_HEADERS);
      return request.method === 'HEAD' ? { ...result, body: '' } : result;
    });
}
