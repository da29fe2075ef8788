import { DeleteCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod';
import { ddb, tableName } from './client.js';
import { and, attributeEquals, conditionFields, itemAbsent, itemPresent } from './conditions.js';
import { parseFound, storedSchema } from './entity.js';
import { keys } from './keys.js';
import { getOne, type Item } from './read.js';
import type { WriteItem } from './transact.js';
import { updateIf } from './update.js';
import { once } from '../domain/validation.js';

/**
 * The console's own state: sessions, WebAuthn ceremonies and enrolment links. Each is found by the
 * SHA-256 of a secret the browser holds (a cookie, or the link), so the table never holds a value
 * that would let its reader act as the user; each carries a TTL so that DynamoDB removes it once
 * it can no longer be used (and the code checks the expiry itself, since TTL deletion lags).
 */
export interface ConsoleSession {
  user_id: string;
  /** The user's session epoch when it began: a re-enrolment moves the user's and ends this session. */
  epoch: number;
  created_at: string;
  last_seen_at: string;
  /** The last passkey assertion in this session: the recent-confirmation gate reads it. */
  confirmed_at: string;
  /** Every state-changing request carries it (the synchroniser token pattern). */
  csrf: string;
  /** The absolute timeout, whatever the activity. */
  expires_at: string;
}

export type CeremonyPurpose = 'sign-in' | 'enrol' | 'register' | 'confirm';

export interface Ceremony {
  purpose: CeremonyPurpose;
  challenge: string;
  expires_at: string;
  /** The user the ceremony is for (enrolment, registration, confirmation); sign-in learns it from the assertion. */
  user_id?: string;
  /** The session a registration or confirmation belongs to: another session cannot complete it. */
  session_hash?: string;
}

export interface EnrolmentLink {
  user_id: string;
  link_hash: string;
  expires_at: string;
  created_at: string;
  created_by: string;
}

/** Under keys.consoleSession; its ttl is DynamoDB's, and the code reads the timeouts instead. */
export const sessionSchema = once(() =>
  storedSchema<ConsoleSession>()(
    z.looseObject({
      user_id: z.string(),
      epoch: z.number(),
      created_at: z.string(),
      last_seen_at: z.string(),
      confirmed_at: z.string(),
      csrf: z.string(),
      expires_at: z.string(),
    }),
  ),
);

/** Under keys.consoleCeremony, read once as it is deleted. */
export const ceremonySchema = once(() =>
  storedSchema<Ceremony>()(
    z.looseObject({
      purpose: z.enum(['sign-in', 'enrol', 'register', 'confirm']),
      challenge: z.string(),
      expires_at: z.string(),
      user_id: z.string().optional(),
      session_hash: z.string().optional(),
    }),
  ),
);

/** Under keys.enrolmentLink: one per user, the newest. */
export const enrolmentLinkSchema = once(() =>
  storedSchema<EnrolmentLink>()(
    z.looseObject({ user_id: z.string(), link_hash: z.string(), expires_at: z.string(), created_at: z.string(), created_by: z.string() }),
  ),
);

const ttlOf = (iso: string) => Math.ceil(Date.parse(iso) / 1000);

export async function putSession(hash: string, session: ConsoleSession, idleUntil: Date): Promise<void> {
  await ddb().send(
    new PutCommand({
      TableName: tableName(),
      Item: { ...keys.consoleSession(hash), entity: 'console-session', ...session, ttl: sessionTtl(session, idleUntil) },
      ...conditionFields(itemAbsent()),
    }),
  );
}

export async function getSession(hash: string): Promise<ConsoleSession | undefined> {
  return parseFound(sessionSchema(), await getOne(keys.consoleSession(hash)));
}

/** The item goes when the first of the two timeouts runs out. */
const sessionTtl = (session: Pick<ConsoleSession, 'expires_at'>, idleUntil: Date) => Math.min(ttlOf(session.expires_at), Math.ceil(idleUntil.getTime() / 1000));

/** Activity moves the idle timeout; a session ended meanwhile stays ended. */
export async function touchSession(hash: string, session: ConsoleSession, now: Date, idleUntil: Date): Promise<void> {
  await updateIf(keys.consoleSession(hash), { last_seen_at: now.toISOString(), ttl: sessionTtl(session, idleUntil) }, itemPresent());
}

export async function confirmSession(hash: string, now: Date): Promise<boolean> {
  return updateIf(keys.consoleSession(hash), { confirmed_at: now.toISOString() }, itemPresent());
}

export async function deleteSession(hash: string): Promise<void> {
  await ddb().send(new DeleteCommand({ TableName: tableName(), Key: keys.consoleSession(hash) }));
}

export async function putCeremony(hash: string, ceremony: Ceremony): Promise<void> {
  await ddb().send(
    new PutCommand({
      TableName: tableName(),
      Item: { ...keys.consoleCeremony(hash), entity: 'console-ceremony', ...ceremony, ttl: ttlOf(ceremony.expires_at) },
    }),
  );
}

/** A challenge answers one ceremony only: reading it deletes it, so a replayed response finds nothing. */
export async function takeCeremony(hash: string): Promise<Ceremony | undefined> {
  const out = await ddb().send(new DeleteCommand({ TableName: tableName(), Key: keys.consoleCeremony(hash), ReturnValues: 'ALL_OLD' }));
  return parseFound(ceremonySchema(), out.Attributes as Item | undefined);
}

/** A new link replaces the user's open one, so only the newest link enrols. */
export async function putEnrolmentLink(link: EnrolmentLink): Promise<void> {
  await ddb().send(
    new PutCommand({ TableName: tableName(), Item: { ...keys.enrolmentLink(link.user_id), entity: 'enrolment-link', ...link, ttl: ttlOf(link.expires_at) } }),
  );
}

export async function getEnrolmentLink(userId: string): Promise<EnrolmentLink | undefined> {
  return parseFound(enrolmentLinkSchema(), await getOne(keys.enrolmentLink(userId)));
}

/** Spends the link in the transaction that registers its passkey: the same link never enrols twice. */
export function spendEnrolmentLinkWrite(link: EnrolmentLink, onSpent: () => Error): WriteItem {
  return {
    kind: 'delete',
    key: keys.enrolmentLink(link.user_id),
    condition: and(itemPresent(), attributeEquals('link_hash', link.link_hash)),
    onConditionFailed: onSpent,
  };
}
