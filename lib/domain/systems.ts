import * as z from 'zod';
import { filledLine, multiLine, singleLine, once } from './validation.js';
import { changesSomething } from './patch.js';

/**
 * System identity (seed: name, short_code normalised to upper case and unique per organisation).
 * The code is checked as sent, ASCII letters of either case, so that the pattern is the whole rule;
 * upper-casing after it cannot leave the pattern.
 */
export const SHORT_CODE = /^[A-Za-z0-9][A-Za-z0-9-]{0,14}[A-Za-z0-9]$/;

const ShortCode = once(() =>
  singleLine()
    .regex(SHORT_CODE, 'must be 2 to 16 letters, digits or inner hyphens')
    .transform((v) => v.toUpperCase())
    .meta({ description: 'Normalised to upper case; unique within the organisation.', examples: ['HR-PAY'] }),
);

const Name = once(() => filledLine(200));
const Description = once(() => multiLine().max(2000).nullable());

export const System = once(() =>
  z
    .object({
      id: z.string(),
      organisation_id: z.string(),
      name: z.string(),
      short_code: z.string(),
      description: z.string().nullable().optional(),
      created_at: z.string().optional(),
      updated_at: z.string().optional(),
      redacted_fields: z.array(z.string()),
    })
    .meta({
      id: 'System',
      description: 'Minimal discovery (without hierarchy authority) lists only id, name and short_code; the rest is named in redacted_fields.',
    }),
);
export type System = z.infer<ReturnType<typeof System>>;

export const CreateSystem = once(() =>
  z.strictObject({ name: Name(), short_code: ShortCode(), description: Description().optional() }).meta({ id: 'CreateSystem' }),
);

export const UpdateSystem = once(() =>
  z
    .strictObject({ name: Name(), short_code: ShortCode(), description: Description() })
    .partial()
    .apply(changesSomething, 'property')
    .meta({ id: 'UpdateSystem', description: 'JSON merge patch: omitted properties are kept; null clears description.' }),
);

export interface StoredSystem {
  id: string;
  organisation_id: string;
  name: string;
  short_code: string;
  description: string | null;
  created_at: string;
  updated_at: string;
  version: number;
}

const MINIMAL = ['id', 'organisation_id', 'name', 'short_code'] as const;

/** Full identity with hierarchy authority; otherwise the minimal discovery view. */
export function systemView(s: StoredSystem, full: boolean): System {
  if (full) {
    const { version: _v, ...rest } = s;
    return { ...rest, redacted_fields: [] };
  }
  const minimal = Object.fromEntries(MINIMAL.map((k) => [k, s[k]])) as Pick<StoredSystem, (typeof MINIMAL)[number]>;
  return { ...minimal, redacted_fields: ['description', 'created_at', 'updated_at'] };
}
