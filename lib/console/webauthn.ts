import type { AuthenticationResponseJSON, RegistrationResponseJSON } from '@simplewebauthn/server';
import { newUlid } from '../domain/ids.js';
import { putCeremony, takeCeremony, type Ceremony, type CeremonyPurpose } from '../store/console.js';
import type { UserRecord } from '../store/identity.js';
import type { PasskeyRecord } from '../store/passkeys.js';
import type { ConsoleConfig } from './config.js';
import type { ConsoleRequest } from './http.js';
import { CEREMONY_COOKIE, cookieSecret, newSecret, setCookie, sha256 } from './session.js';

/**
 * The WebAuthn ceremonies, through @simplewebauthn/server (CBOR, COSE keys, attestation and
 * signatures are the library's). User verification is required everywhere: a passkey verified by
 * the authenticator is phishing-resistant multi-factor authentication on its own. The challenge
 * lives server-side under a cookie of its own and is spent by its first answer.
 */
const CEREMONY_MS = 5 * 60_000;
/** A credential id becomes a sort key (at most 1 KB); real authenticators use 16 to 64 bytes. */
const CREDENTIAL_ID = /^[A-Za-z0-9_-]{16,512}$/;

/**
 * The library is loaded at the first ceremony, not at the cold start: its settings parse root
 * certificates when evaluated, which would count against the passkeys function's module init
 * (its routes are the only ones that reach this module: lib/console/routes/ceremonies.tsx).
 */
let library: Promise<typeof import('@simplewebauthn/server')> | undefined;
const webauthn = () => (library ??= import('@simplewebauthn/server'));

export async function beginCeremony(purpose: CeremonyPurpose, challenge: string, now: Date, bound: Pick<Ceremony, 'user_id' | 'session_hash'> = {}) {
  const secret = newSecret();
  await putCeremony(sha256(secret), { purpose, challenge, expires_at: new Date(now.getTime() + CEREMONY_MS).toISOString(), ...bound });
  return setCookie(CEREMONY_COOKIE, secret, CEREMONY_MS / 1000);
}

/** The request's ceremony, spent: undefined when there is none, it expired, or it was begun for something else. */
export async function spendCeremony(request: ConsoleRequest, purpose: CeremonyPurpose, now: Date): Promise<Ceremony | undefined> {
  const secret = cookieSecret(request, CEREMONY_COOKIE);
  if (!secret) return undefined;
  const ceremony = await takeCeremony(sha256(secret));
  if (!ceremony || ceremony.purpose !== purpose || Date.parse(ceremony.expires_at) <= now.getTime()) return undefined;
  return ceremony;
}

export const userHandleOf = (user: Pick<UserRecord, 'id'>) => new TextEncoder().encode(user.id);

export async function registrationOptions(config: ConsoleConfig, user: UserRecord, existing: readonly PasskeyRecord[]) {
  const { generateRegistrationOptions } = await webauthn();
  return generateRegistrationOptions({
    rpName: config.rpName,
    rpID: config.rpId,
    userName: user.email,
    userDisplayName: user.name,
    userID: userHandleOf(user),
    attestationType: 'none',
    excludeCredentials: existing.map((p) => ({ id: p.credential_id, transports: p.transports })),
    authenticatorSelection: { residentKey: 'required', userVerification: 'required' },
  });
}

/** The new passkey when the response proves a user-verified credential for this challenge; undefined otherwise. */
export async function verifiedRegistration(
  config: ConsoleConfig,
  ceremony: Ceremony,
  response: unknown,
  user: UserRecord,
  name: string,
  now: Date,
): Promise<PasskeyRecord | undefined> {
  const { verifyRegistrationResponse } = await webauthn();
  try {
    const out = await verifyRegistrationResponse({
      response: response as RegistrationResponseJSON,
      expectedChallenge: ceremony.challenge,
      expectedOrigin: config.origin,
      expectedRPID: config.rpId,
      requireUserVerification: true,
    });
    if (!out.verified || !CREDENTIAL_ID.test(out.registrationInfo.credential.id)) return undefined;
    const { credential, credentialBackedUp } = out.registrationInfo;
    return {
      id: newUlid(now.getTime()),
      user_id: user.id,
      credential_id: credential.id,
      public_key: Buffer.from(credential.publicKey).toString('base64url'),
      counter: credential.counter,
      transports: credential.transports ?? [],
      name,
      created_at: now.toISOString(),
      backed_up: credentialBackedUp,
    };
  } catch {
    return undefined;
  }
}

/** Sign-in offers no credential list (discoverable passkeys); a confirmation offers the user's own. */
export async function authenticationOptions(config: ConsoleConfig, allow?: readonly PasskeyRecord[]) {
  const { generateAuthenticationOptions } = await webauthn();
  return generateAuthenticationOptions({
    rpID: config.rpId,
    userVerification: 'required',
    ...(allow ? { allowCredentials: allow.map((p) => ({ id: p.credential_id, transports: p.transports as never })) } : {}),
  });
}

/** Which passkey an assertion claims to come from: the user handle and credential id it carries, before any check. */
export function claimedPasskey(response: unknown): { userId: string; credentialId: string } | undefined {
  if (response === null || typeof response !== 'object') return undefined;
  const r = response as { id?: unknown; response?: { userHandle?: unknown } };
  const handle = r.response?.userHandle;
  if (typeof r.id !== 'string' || !CREDENTIAL_ID.test(r.id) || typeof handle !== 'string' || !/^[A-Za-z0-9_-]{1,64}$/.test(handle)) return undefined;
  const userId = Buffer.from(handle, 'base64url').toString('utf8');
  return /^[0-9A-HJKMNP-TV-Z]{26}$/.test(userId) ? { userId, credentialId: r.id } : undefined;
}

/** The authenticator's new signature counter when the assertion verifies; undefined otherwise. */
export async function verifiedAssertion(config: ConsoleConfig, ceremony: Ceremony, response: unknown, passkey: PasskeyRecord): Promise<number | undefined> {
  const { verifyAuthenticationResponse } = await webauthn();
  try {
    const out = await verifyAuthenticationResponse({
      response: response as AuthenticationResponseJSON,
      expectedChallenge: ceremony.challenge,
      expectedOrigin: config.origin,
      expectedRPID: config.rpId,
      credential: {
        id: passkey.credential_id,
        publicKey: Buffer.from(passkey.public_key, 'base64url'),
        counter: passkey.counter,
        transports: passkey.transports,
      },
      requireUserVerification: true,
    });
    return out.verified ? out.authenticationInfo.newCounter : undefined;
  } catch {
    return undefined;
  }
}
