import * as z from 'zod';
import { filledLine, singleLine, once } from './validation.js';
import { changesSomething } from './patch.js';

/** A contact of one system (seed: same-system active contacts; deleted contacts are absent). */
const Name = once(() => filledLine(200));
const Optional = once(() => ({
  role: filledLine(200).nullable(),
  email: z.email().max(254).nullable(),
  phone: singleLine()
    .regex(/^[0-9 +()\-.]{3,40}$/, 'must be a telephone number')
    .nullable(),
  organisation_name: filledLine(200).nullable(),
}));

export const Contact = once(() =>
  z
    .object({
      id: z.string(),
      system_id: z.string(),
      name: z.string(),
      role: z.string().nullable(),
      email: z.string().nullable(),
      phone: z.string().nullable(),
      organisation_name: z.string().nullable(),
      created_at: z.string(),
      updated_at: z.string(),
    })
    .meta({ id: 'Contact' }),
);
export type Contact = z.infer<ReturnType<typeof Contact>>;

export const CreateContact = once(() =>
  z
    .strictObject({
      name: Name(),
      role: Optional().role.optional(),
      email: Optional().email.optional(),
      phone: Optional().phone.optional(),
      organisation_name: Optional().organisation_name.optional(),
    })
    .meta({ id: 'CreateContact' }),
);

export const UpdateContact = once(() =>
  z
    .strictObject({ name: Name(), ...Optional() })
    .partial()
    .apply(changesSomething, 'property')
    .meta({ id: 'UpdateContact', description: 'JSON merge patch: omitted properties are kept; null clears an optional one.' }),
);

export type ContactStatus = 'active' | 'deleted';

export interface StoredContact extends Contact {
  version: number;
  status: ContactStatus;
  organisation_id: string;
}

export const contactView = ({ version: _v, status: _s, organisation_id: _o, ...contact }: StoredContact): Contact => contact;
