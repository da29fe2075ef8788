import type { JSX } from 'hono/jsx/jsx-runtime';
import type { AuditContext } from '../auth/administration.js';
import type { ConsoleConfig } from './config.js';
import type { ConsoleRequest, ConsoleResponse } from './http.js';
import type { PageContext } from './pages/layout.js';
import type { SignedIn } from './session.js';

/**
 * A console route, declared once with its gates: who may reach it (anyone, a signed-in person, a
 * user administrator), and for state changes whether it needs a recent passkey confirmation. The
 * handler (lib/console/handler.ts) applies the gates in one place, before any route code runs.
 */
export type Gate = 'public' | 'session' | 'administrator';

export interface RouteContext {
  request: ConsoleRequest;
  config: ConsoleConfig;
  now: Date;
  params: Record<string, string>;
  /** The urlencoded form of a POST (empty otherwise). */
  form: URLSearchParams;
  page: PageContext;
  audit: AuditContext;
}

export interface SessionContext extends RouteContext {
  signedIn: SignedIn;
}

interface BaseRoute {
  method: 'GET' | 'POST';
  /** Below /console; `{name}` matches one ULID segment. */
  path: string;
  /** Endpoints of the ceremony script answer problem+json, not pages. */
  json?: boolean;
}

export type Route =
  | (BaseRoute & { gate: 'public'; handle: (ctx: RouteContext) => Promise<ConsoleResponse> })
  | (BaseRoute & {
      gate: 'session' | 'administrator';
      /** What the action does, for the confirmation prompt: set when it needs a recent passkey assertion. */
      confirm?: string;
      handle: (ctx: SessionContext) => Promise<ConsoleResponse>;
    });

/** The routes one console function serves, under its name in infra/recorded-commands.json (its entry module under functions/). */
export interface ConsoleFunction {
  name: string;
  routes: readonly Route[];
}

export const ULID_SEGMENT = /^[0-9A-HJKMNP-TV-Z]{26}$/;

export function matchRoute(routes: readonly Route[], method: string, path: string): { route: Route; params: Record<string, string> } | 'no-method' | undefined {
  const segments = path.split('/').filter(Boolean);
  let pathMatched = false;
  for (const route of routes) {
    const pattern = route.path.split('/').filter(Boolean);
    if (pattern.length !== segments.length) continue;
    const params: Record<string, string> = {};
    const fits = pattern.every((p, i) => {
      const s = segments[i]!;
      if (p.startsWith('{')) {
        params[p.slice(1, -1)] = s;
        return ULID_SEGMENT.test(s);
      }
      return p === s;
    });
    if (!fits) continue;
    pathMatched = true;
    if (route.method === method || (method === 'HEAD' && route.method === 'GET')) return { route, params };
  }
  return pathMatched ? 'no-method' : undefined;
}

export const html = (element: JSX.Element, status = 200): ConsoleResponse => ({
  status,
  headers: { 'Content-Type': 'text/html; charset=utf-8' },
  body: `<!doctype html>${element.toString()}`,
});
