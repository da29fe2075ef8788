import * as z from 'zod';
import { once } from './validation.js';
import { CLASSIFICATION_CODES, CLASSIFICATIONS } from './classifications.js';

/** The choices a project setup form offers (seed: ISM release, licensed classifications, scope choices, provider assurance metadata). */

export const ESSENTIAL_EIGHT_TARGETS = [
  { value: 'none', label: 'No Essential Eight target' },
  { value: 'ML1', label: 'Maturity Level One' },
  { value: 'ML2', label: 'Maturity Level Two' },
  { value: 'ML3', label: 'Maturity Level Three' },
] as const;

export const ASSESSMENT_TYPES = [
  { value: 'initial', label: 'Initial assessment' },
  { value: 'reassessment', label: 'Reassessment' },
  { value: 'change', label: 'Assessment of a significant change' },
] as const;

const Choice = once(() => z.object({ value: z.string(), label: z.string() }));

export const SetupOptions = once(() =>
  z
    .object({
      ism_releases: z.array(
        z.object({
          id: z.string(),
          version: z.string(),
          title: z.string(),
          entries: z.number().int(),
          sample: z.boolean().meta({ description: 'True for the sample catalogue this product ships (not the ISM).' }),
        }),
      ),
      classifications: z.array(z.object({ code: z.enum(CLASSIFICATION_CODES), name: z.string() })),
      scope_choices: z.object({ essential_eight_targets: z.array(Choice()), assessment_types: z.array(Choice()) }),
      provider_assurance: z.object({
        providers: z
          .array(
            z.object({
              id: z.string(),
              name: z.string(),
              releases: z.array(z.object({ id: z.string(), version: z.string(), name: z.string(), ism_version_id: z.string(), ism_version: z.string() })),
            }),
          )
          .meta({ description: 'Shared providers with published assurance releases, which provider_selections of a scope may name.' }),
      }),
    })
    .meta({ id: 'SetupOptions' }),
);
export type SetupOptions = z.infer<ReturnType<typeof SetupOptions>>;

export function licensedClassifications(codes: readonly string[]) {
  return CLASSIFICATIONS.filter((c) => codes.includes(c.code));
}
