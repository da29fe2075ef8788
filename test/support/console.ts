import { createHash, generateKeyPairSync, randomBytes, sign, type KeyObject } from 'node:crypto';
import { isoCBOR } from '@simplewebauthn/server/helpers';
import type { ConsoleConfig } from '../../lib/console/config.js';
import type { ConsoleRequest } from '../../lib/console/http.js';

/**
 * A software passkey for API tests of the console: an ES256 key pair that answers WebAuthn
 * creation and request options the way a platform authenticator does (attestation "none", user
 * presence and verification flags set). The CBOR is @simplewebauthn's own encoder; the browser
 * tests use Chromium's virtual authenticator instead.
 */
const b64url = (bytes: Uint8Array | Buffer) => Buffer.from(bytes).toString('base64url');
const sha256 = (data: Uint8Array | Buffer | string) => createHash('sha256').update(data).digest();

const FLAG_UP = 0x01;
const FLAG_UV = 0x04;
const FLAG_AT = 0x40;

export interface SoftPasskey {
  credentialId: Buffer;
  userHandle?: string;
  counter: number;
  /** Answers registration options (`navigator.credentials.create`). */
  register(options: { challenge: string; rp: { id?: string } }, origin: string): Record<string, unknown>;
  /** Answers authentication options (`navigator.credentials.get`). */
  assert(options: { challenge: string; rpId?: string }, origin: string, overrides?: { userVerified?: boolean; type?: string }): Record<string, unknown>;
}

export function softPasskey(userId: string): SoftPasskey {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const jwk = publicKey.export({ format: 'jwk' });
  const cose = new Map<number, number | Uint8Array>([
    [1, 2],
    [3, -7],
    [-1, 1],
    [-2, Buffer.from(jwk.x!, 'base64url')],
    [-3, Buffer.from(jwk.y!, 'base64url')],
  ]);
  const key: SoftPasskey = {
    credentialId: randomBytes(32),
    userHandle: b64url(Buffer.from(userId)),
    counter: 0,
    register(options, origin) {
      const clientDataJSON = Buffer.from(JSON.stringify({ type: 'webauthn.create', challenge: options.challenge, origin, crossOrigin: false }));
      const id = key.credentialId;
      const authData = Buffer.concat([
        sha256(options.rp.id ?? new URL(origin).hostname),
        Buffer.from([FLAG_UP | FLAG_UV | FLAG_AT]),
        Buffer.alloc(4),
        Buffer.alloc(16),
        Buffer.from([id.length >> 8, id.length & 0xff]),
        id,
        Buffer.from(isoCBOR.encode(cose)),
      ]);
      const attestationObject = isoCBOR.encode(
        new Map<string, unknown>([
          ['fmt', 'none'],
          ['attStmt', new Map()],
          ['authData', authData],
        ]) as never,
      );
      return {
        id: b64url(id),
        rawId: b64url(id),
        type: 'public-key',
        response: { clientDataJSON: b64url(clientDataJSON), attestationObject: b64url(attestationObject), transports: ['internal'] },
        clientExtensionResults: {},
        authenticatorAttachment: 'platform',
      };
    },
    assert(options, origin, overrides = {}) {
      key.counter += 1;
      const clientDataJSON = Buffer.from(JSON.stringify({ type: overrides.type ?? 'webauthn.get', challenge: options.challenge, origin, crossOrigin: false }));
      const counter = Buffer.alloc(4);
      counter.writeUInt32BE(key.counter);
      const flags = FLAG_UP | (overrides.userVerified === false ? 0 : FLAG_UV);
      const authenticatorData = Buffer.concat([sha256(options.rpId ?? new URL(origin).hostname), Buffer.from([flags]), counter]);
      const signature = sign('sha256', Buffer.concat([authenticatorData, sha256(clientDataJSON)]), privateKey as KeyObject);
      return {
        id: b64url(key.credentialId),
        rawId: b64url(key.credentialId),
        type: 'public-key',
        response: {
          clientDataJSON: b64url(clientDataJSON),
          authenticatorData: b64url(authenticatorData),
          signature: b64url(signature),
          ...(key.userHandle ? { userHandle: key.userHandle } : {}),
        },
        clientExtensionResults: {},
        authenticatorAttachment: 'platform',
      };
    },
  };
  return key;
}

export interface ConsoleAnswer {
  status: number;
  headers: Headers;
  text: string;
  json: any;
}

/**
 * A browser as far as the console can tell: it keeps the cookies it is given, sends its Origin on
 * every POST, and carries the form token the last page gave it.
 */
export function consoleClient(base: string, origin = base) {
  const jar = new Map<string, string>();
  let csrf = '';
  const remember = (headers: Headers) => {
    for (const line of headers.getSetCookie()) {
      const [pair, ...attributes] = line.split(';');
      const eq = pair!.indexOf('=');
      const name = pair!.slice(0, eq).trim();
      const value = pair!.slice(eq + 1).trim();
      if (value === '' || attributes.some((a) => a.trim().toLowerCase() === 'max-age=0')) jar.delete(name);
      else jar.set(name, value);
    }
  };
  async function send(method: string, path: string, body?: string, type?: string, extra: Record<string, string> = {}): Promise<ConsoleAnswer> {
    const headers: Record<string, string> = { ...extra };
    if (jar.size) headers.Cookie = [...jar].map(([n, v]) => `${n}=${v}`).join('; ');
    if (method === 'POST') headers.Origin ??= origin;
    if (type) headers['Content-Type'] = type;
    const res = await fetch(`${base}/console${path}`, { method, headers, body, redirect: 'manual' });
    remember(res.headers);
    const text = await res.text();
    const token = /<meta name="csrf-token" content="([^"]+)"/.exec(text)?.[1];
    if (token) csrf = token;
    let json: unknown;
    if ((res.headers.get('content-type') ?? '').includes('json')) json = JSON.parse(text);
    return { status: res.status, headers: res.headers, text, json };
  }
  return {
    jar,
    csrf: () => csrf,
    get: (path: string) => send('GET', path),
    postForm: (path: string, fields: [string, string][] | Record<string, string>, extra?: Record<string, string>) =>
      send('POST', path, new URLSearchParams(fields as never).toString(), 'application/x-www-form-urlencoded', extra),
    postJson: (path: string, body: unknown = {}, extra: Record<string, string> = {}) =>
      send('POST', path, JSON.stringify(body), 'application/json', { 'X-CSRF-Token': csrf, ...extra }),
  };
}

export type ConsoleClient = ReturnType<typeof consoleClient>;

/** The enrolment a new user makes with the link an administrator gave them. */
export async function enrolWith(client: ConsoleClient, secret: string, passkey: SoftPasskey, origin: string, name = 'Laptop') {
  const options = await client.postJson('/enrol/options', { link: secret });
  if (options.status !== 200) return options;
  return client.postJson('/enrol', { link: secret, name, response: passkey.register(options.json.options, origin) });
}

export async function signInWith(client: ConsoleClient, passkey: SoftPasskey, origin: string, overrides?: Parameters<SoftPasskey['assert']>[2]) {
  const options = await client.postJson('/sign-in/options');
  return client.postJson('/sign-in', { response: passkey.assert(options.json, origin, overrides) });
}

/** The passkey assertion of the recent-confirmation gate. */
export async function confirmWith(client: ConsoleClient, passkey: SoftPasskey, origin: string) {
  await client.get('/');
  const options = await client.postJson('/confirm/options');
  return client.postJson('/confirm', { response: passkey.assert(options.json, origin) });
}

/** The console's settings for unit tests: an installation on its own origin, with the default timeouts. */
export const CONSOLE_CONFIG: ConsoleConfig = {
  origin: 'https://assess.example.gov.au',
  rpId: 'assess.example.gov.au',
  rpName: 'Assessment Operations',
  basePath: '',
  idleMs: 30 * 60_000,
  absoluteMs: 12 * 3_600_000,
  confirmationMs: 5 * 60_000,
};

/** A console request carrying the given cookies, for unit tests of what reads them. */
export const requestWithCookies = (cookies: Record<string, string>): ConsoleRequest => ({
  requestId: 'r',
  method: 'POST',
  path: '/',
  query: new URLSearchParams(),
  headers: {},
  cookies,
  body: Buffer.alloc(0),
  sourceIp: '192.0.2.1',
});
