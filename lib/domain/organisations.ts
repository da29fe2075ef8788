import * as z from 'zod';
import { filledLine, multiLine, once, singleLine } from './validation.js';
import { changesSomething } from './patch.js';

/** Organisation identity rules (seed, Resources: name and timezone on create; allowlisted edits). */

/** How a tz database name is spelt (Area/Location): the part of the time zone rule a pattern can state. */
const TIMEZONE_NAME = /^[A-Za-z][A-Za-z0-9_+-]*(\/[A-Za-z0-9_+-]+)*$/;

/** An IANA time zone name, returned in its canonical spelling. */
export function canonicalTimezone(value: string): string | undefined {
  if (!TIMEZONE_NAME.test(value)) return undefined;
  try {
    return new Intl.DateTimeFormat('en-US', { timeZone: value }).resolvedOptions().timeZone;
  } catch {
    return undefined;
  }
}

export const SLUG_PATTERN = /^[a-z0-9](?:[a-z0-9-]{1,61}[a-z0-9])$/;

/** A URL-safe slug from a display name; always matches SLUG_PATTERN. */
export function slugify(name: string): string {
  const base = name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 50)
    .replace(/-+$/g, '');
  return base.length >= 3 ? base : `org-${base || 'x'}`.replace(/-+$/g, '').padEnd(3, '0');
}

const Name = once(() => filledLine(200));
/**
 * Any name of the runtime's tz database, links and any letter case included, answered in its
 * canonical spelling. Not an enum: Intl.supportedValuesOf('timeZone') lists neither UTC nor links
 * such as Asia/Kolkata on every Node.js release, and differs between them.
 */
const Timezone = once(() =>
  singleLine()
    .regex(TIMEZONE_NAME, 'must be an IANA time zone name such as Australia/Sydney')
    .transform((v, ctx) => {
      const tz = canonicalTimezone(v);
      if (!tz) ctx.addIssue({ code: 'custom', message: 'must be an IANA time zone name such as Australia/Sydney' });
      return tz ?? v;
    })
    .meta({
      description:
        'An IANA time zone database name (Area/Location, or UTC), in any letter case; links such as US/Eastern are accepted. Answered in its canonical spelling.',
      examples: ['Australia/Sydney', 'UTC'],
    }),
);

export const Organisation = once(() =>
  z
    .object({
      id: z.string(),
      name: z.string(),
      slug: z.string(),
      timezone: z.string(),
      contact_name: z.string().nullable(),
      contact_email: z.string().nullable(),
      contact_phone: z.string().nullable(),
      notes: z.string().nullable(),
      created_at: z.string(),
      updated_at: z.string(),
    })
    .meta({ id: 'Organisation' }),
);
export type Organisation = z.infer<ReturnType<typeof Organisation>>;

export const CreateOrganisation = once(() => z.strictObject({ name: Name(), timezone: Timezone() }).meta({ id: 'CreateOrganisation' }));

export const UpdateOrganisation = once(() =>
  z
    .strictObject({
      name: Name(),
      slug: singleLine().regex(SLUG_PATTERN, 'must be 3 to 63 lower-case letters, digits or hyphens, not starting or ending with a hyphen'),
      timezone: Timezone(),
      contact_name: filledLine(200).nullable(),
      contact_email: z.email().max(254).nullable(),
      contact_phone: singleLine()
        .regex(/^[0-9 +()\-.]{3,40}$/, 'must be a telephone number')
        .nullable(),
      notes: multiLine().max(5000).nullable(),
    })
    .partial()
    .apply(changesSomething, 'property')
    .meta({ id: 'UpdateOrganisation', description: 'JSON merge patch (RFC 7396): omitted properties are kept; null clears a nullable property.' }),
);
export type UpdateOrganisation = z.infer<ReturnType<typeof UpdateOrganisation>>;

export function applyOrganisationPatch(current: Organisation, patch: UpdateOrganisation, now: Date): Organisation {
  return { ...current, ...patch, updated_at: now.toISOString() };
}
