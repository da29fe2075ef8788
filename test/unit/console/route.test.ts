import { raw } from 'hono/html';
import { describe, expect, it } from 'vitest';
import { html, matchRoute, type Route } from '../../../lib/console/route.js';

const handle = async () => ({ status: 204, headers: {}, body: '' });
const routes: Route[] = [
  { method: 'GET', path: '/tokens', gate: 'session', handle },
  { method: 'POST', path: '/tokens', gate: 'session', confirm: 'Issue a token', handle },
  { method: 'POST', path: '/tokens/{token}/revoke', gate: 'session', confirm: 'Revoke the token', handle },
  { method: 'GET', path: '/', gate: 'public', handle },
];
const TOKEN = '01M84T2AZS9C8TZ6EGZG2RXYHA';

describe('matchRoute', () => {
  it('matches a route by method and path', () => {
    expect(matchRoute(routes, 'POST', '/tokens')).toEqual({ route: routes[1], params: {} });
  });

  it('binds a ULID segment to its parameter', () => {
    expect(matchRoute(routes, 'POST', `/tokens/${TOKEN}/revoke`)).toEqual({ route: routes[2], params: { token: TOKEN } });
  });

  it('matches nothing where a parameter segment is not a ULID', () => {
    expect(matchRoute(routes, 'POST', '/tokens/not-a-ulid/revoke')).toBeUndefined();
  });

  it('answers HEAD with the GET route', () => {
    expect(matchRoute(routes, 'HEAD', '/tokens')).toEqual({ route: routes[0], params: {} });
  });

  it('tells a path that exists under another method from one that does not exist', () => {
    expect([matchRoute(routes, 'DELETE', '/tokens'), matchRoute(routes, 'GET', '/passkeys')]).toEqual(['no-method', undefined]);
  });

  it('ignores empty segments, so a trailing slash names the same page', () => {
    expect(matchRoute(routes, 'GET', '/tokens/')).toEqual({ route: routes[0], params: {} });
  });

  it('matches the root', () => {
    expect(matchRoute(routes, 'GET', '/')).toEqual({ route: routes[3], params: {} });
  });
});

describe('html', () => {
  it('answers the page as an HTML document with the status given', () => {
    expect(html(raw('<p>Signed out</p>'), 401)).toEqual({
      status: 401,
      headers: { 'Content-Type': 'text/html; charset=utf-8' },
      body: '<!doctype html><p>Signed out</p>',
    });
  });
});
