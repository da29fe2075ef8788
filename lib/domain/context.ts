import * as z from 'zod';
import { filledText, multiLine, once } from './validation.js';
import { changesSomething } from './patch.js';

/**
 * Canonical context: a versioned definition (field IDs, types, option values) and the data kept
 * against it. Clients render forms from the definition; PATCH merges data per field.
 */
export type ContextOption = { value: string; label: string };
export type ContextDefinition = z.infer<ReturnType<typeof ContextDefinitionSchema>>;
export type ContextField = ContextDefinition['fields'][number];

const YES_NO: ContextOption[] = [
  { value: 'yes', label: 'Yes' },
  { value: 'no', label: 'No' },
];

export const ORGANISATION_CONTEXT: ContextDefinition = {
  version: '2025.1',
  fields: [
    { id: 'business_description', label: 'What the organisation does', type: 'text', max_length: 5000 },
    {
      id: 'industry_sector',
      label: 'Industry sector',
      type: 'option',
      options: [
        { value: 'government', label: 'Government' },
        { value: 'defence', label: 'Defence and defence industry' },
        { value: 'critical_infrastructure', label: 'Critical infrastructure' },
        { value: 'finance', label: 'Financial services' },
        { value: 'health', label: 'Health' },
        { value: 'education', label: 'Education and research' },
        { value: 'technology', label: 'Technology and services' },
        { value: 'other', label: 'Other' },
      ],
    },
    {
      id: 'workforce_size',
      label: 'Workforce size',
      type: 'option',
      options: [
        { value: '1_19', label: '1 to 19' },
        { value: '20_199', label: '20 to 199' },
        { value: '200_999', label: '200 to 999' },
        { value: '1000_plus', label: '1,000 or more' },
      ],
    },
    { id: 'outsourced_delivery', label: 'Service delivery is outsourced', type: 'option', options: YES_NO, affects_applicability: true },
    { id: 'security_governance', label: 'Security governance arrangements', type: 'text', max_length: 5000 },
  ],
};

export const SYSTEM_CONTEXT: ContextDefinition = {
  version: '2025.1',
  fields: [
    { id: 'system_description', label: 'What the system does', type: 'text', max_length: 5000 },
    { id: 'hosting_model', label: 'Hosted by a cloud or managed service provider', type: 'option', options: YES_NO, affects_applicability: true },
    { id: 'internet_facing_services', label: 'Offers internet-facing services', type: 'option', options: YES_NO, affects_applicability: true },
    {
      id: 'third_party_privileged_access',
      label: 'Third parties hold privileged access',
      type: 'option',
      options: YES_NO,
      affects_applicability: true,
    },
    { id: 'data_description', label: 'Information the system processes', type: 'text', max_length: 5000 },
  ],
};

export type ContextData = Record<string, string | null>;

const fieldSchema = (f: ContextField) =>
  f.type === 'option'
    ? z.enum(f.options!.map((o) => o.value) as [string, ...string[]]).nullable()
    : multiLine()
        .max(f.max_length ?? 5000)
        .nullable();

/** PATCH body: `data` merges per field (null clears), `edit_reason` is kept in the audit trail. */
export function contextPatchSchema(definition: ContextDefinition, name: string) {
  const data = z.strictObject(Object.fromEntries(definition.fields.map((f) => [f.id, fieldSchema(f).optional()])));
  return z
    .strictObject({
      data: data.apply(changesSomething, 'field'),
      edit_reason: filledText(1000).optional(),
    })
    .meta({ id: `${name}Patch`, description: 'Merge per field: omitted fields are kept, null clears one. data: null is refused.' });
}

export const ContextDefinitionSchema = once(() =>
  z
    .object({
      version: z.string(),
      fields: z.array(
        z.object({
          id: z.string(),
          label: z.string(),
          type: z.enum(['option', 'text']),
          options: z.array(z.object({ value: z.string(), label: z.string() })).optional(),
          max_length: z.number().int().optional(),
          affects_applicability: z.boolean().optional(),
        }),
      ),
    })
    .meta({ id: 'ContextDefinition' }),
);

export function contextResponseSchema(name: string) {
  return z
    .object({
      definition: ContextDefinitionSchema(),
      data: z.record(z.string(), z.string().nullable()),
      updated_at: z.string().nullable(),
      updated_by: z.string().nullable(),
    })
    .meta({ id: name });
}

/** Every field of the definition, null where nothing is recorded. */
export function completeData(definition: ContextDefinition, stored: ContextData | undefined): ContextData {
  return Object.fromEntries(definition.fields.map((f) => [f.id, stored?.[f.id] ?? null]));
}

/** The context as read: its definition, every field's value, and who changed it last. */
export function contextView(definition: ContextDefinition, context: { data: ContextData; updated_at: string; updated_by: string } | undefined) {
  return {
    definition,
    data: completeData(definition, context?.data),
    updated_at: context?.updated_at ?? null,
    updated_by: context?.updated_by ?? null,
  };
}

/** The fields whose value the patch actually changes. */
export function changedFields(current: ContextData, patch: Record<string, string | null | undefined>): string[] {
  return Object.entries(patch)
    .filter(([id, value]) => value !== undefined && (current[id] ?? null) !== value)
    .map(([id]) => id);
}

export function affectsApplicability(definition: ContextDefinition, fields: string[]): boolean {
  return definition.fields.some((f) => f.affects_applicability && fields.includes(f.id));
}
