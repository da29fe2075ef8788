import * as z from 'zod';
import { CLASSIFICATION_CODES } from './classifications.js';
import { once } from './validation.js';

/**
 * The register catalogue (operations.md, "Register catalogue"): definitions are data with stable
 * ULIDs, so that {definition} path parameters stay valid across releases and installations.
 */
export const COLUMN_TYPES = ['string', 'text', 'date', 'integer', 'boolean', 'enum', 'contact_ref', 'control_ref', 'document_ref'] as const;
export type ColumnType = (typeof COLUMN_TYPES)[number];

export const REGISTER_OWNERS = ['project', 'system', 'organisation'] as const;
export type RegisterOwner = (typeof REGISTER_OWNERS)[number];

export const REGISTER_KINDS = ['manual', 'generated'] as const;
export type RegisterKind = (typeof REGISTER_KINDS)[number];

export interface RegisterColumn {
  id: string;
  label: string;
  type: ColumnType;
  required: boolean;
  enum_id?: string;
  max_length?: number;
  /** A generated count of this source: hidden, like a reference to it, from a credential that cannot read it. */
  counts?: 'contacts' | 'controls' | 'documents';
}

export interface RegisterDefinition {
  id: string;
  key: string;
  name: string;
  description: string;
  owner: RegisterOwner;
  kind: RegisterKind;
  columns: readonly RegisterColumn[];
  enums: Readonly<Record<string, readonly string[]>>;
  /** Columns whose combined value is unique within the owner scope (project, system or organisation). */
  logical_key: readonly string[];
}

const ENUMS = {
  classification: CLASSIFICATION_CODES,
  risk_rating: ['low', 'medium', 'high', 'extreme'],
  likelihood: ['rare', 'unlikely', 'possible', 'likely', 'almost_certain'],
  consequence: ['insignificant', 'minor', 'moderate', 'major', 'catastrophic'],
  risk_status: ['open', 'treating', 'accepted', 'closed'],
  severity: ['critical', 'high', 'medium', 'low'],
  poam_status: ['open', 'in_progress', 'completed', 'cancelled'],
  exception_status: ['proposed', 'approved', 'expired', 'revoked'],
  asset_type: ['hardware', 'software', 'service', 'data', 'network', 'other'],
  contact_category: ['internal', 'supplier', 'regulator', 'emergency', 'other'],
  summary_dimension: ['applicability', 'implementation_status', 'workflow_state', 'assessment_outcome'],
} as const satisfies Record<string, readonly string[]>;
type EnumId = keyof typeof ENUMS;

/** Free-text columns always carry a limit, so that a row stays far below DynamoDB's item size. */
const DEFAULT_MAX_LENGTH: Partial<Record<ColumnType, number>> = { string: 200, text: 5000 };

const col = (
  id: string,
  label: string,
  type: ColumnType,
  extra: { required?: boolean; enum_id?: EnumId; max_length?: number; counts?: RegisterColumn['counts'] } = {},
): RegisterColumn => {
  const max = extra.max_length ?? DEFAULT_MAX_LENGTH[type];
  return {
    id,
    label,
    type,
    required: extra.required ?? false,
    ...(extra.enum_id ? { enum_id: extra.enum_id } : {}),
    ...(max ? { max_length: max } : {}),
    ...(extra.counts ? { counts: extra.counts } : {}),
  };
};
const required = { required: true } as const;
const enumOf = (enum_id: EnumId, extra: { required?: boolean } = {}) => ({ enum_id, ...extra });

/** A definition's enums are exactly those its columns use. */
function define(d: Omit<RegisterDefinition, 'enums'>): RegisterDefinition {
  const used = [...new Set(d.columns.flatMap((c) => (c.enum_id ? [c.enum_id as EnumId] : [])))];
  return { ...d, enums: Object.fromEntries(used.map((id) => [id, ENUMS[id]])) };
}

export const REGISTER_DEFINITION_IDS = {
  riskRegister: '01M80NF4M4DPXJJH74P6B9M172',
  poam: '01M80NF4M7SJSX14PSX8M3A3KE',
  exceptions: '01M80NF4M7J096DMHJN4F6GBGH',
  assetRegister: '01M80NF4M72HX3CR96E6C743FY',
  thirdPartyRegister: '01M80NF4M7HR3A2Y2E96ZFYBZE',
  contactsDirectory: '01M80NF4M7GFEFWJB5GZ2YWPD9',
  controlSummary: '01M80NF4M8VP1YJMMRDN524XV9',
} as const;

export const REGISTER_DEFINITIONS: readonly RegisterDefinition[] = [
  define({
    id: REGISTER_DEFINITION_IDS.riskRegister,
    key: 'risk-register',
    name: 'Risk register',
    description: 'Security risks of the project with their assessment, treatment and owner.',
    owner: 'project',
    kind: 'manual',
    columns: [
      col('risk_id', 'Risk ID', 'string', { ...required, max_length: 32 }),
      col('title', 'Title', 'string', required),
      col('description', 'Description', 'text'),
      col('likelihood', 'Likelihood', 'enum', enumOf('likelihood')),
      col('consequence', 'Consequence', 'enum', enumOf('consequence')),
      col('inherent_rating', 'Inherent rating', 'enum', enumOf('risk_rating')),
      col('treatment', 'Treatment', 'text'),
      col('residual_rating', 'Residual rating', 'enum', enumOf('risk_rating')),
      col('risk_owner', 'Risk owner', 'contact_ref'),
      col('related_control', 'Related control', 'control_ref'),
      col('status', 'Status', 'enum', enumOf('risk_status', required)),
      col('review_due', 'Review due', 'date'),
    ],
    logical_key: ['risk_id'],
  }),
  define({
    id: REGISTER_DEFINITION_IDS.poam,
    key: 'poam',
    name: 'Plan of action and milestones',
    description: 'Weaknesses to remediate, with milestones, responsibility and scheduled completion.',
    owner: 'project',
    kind: 'manual',
    columns: [
      col('item_id', 'Item ID', 'string', { ...required, max_length: 32 }),
      col('weakness', 'Weakness', 'text', required),
      col('related_control', 'Related control', 'control_ref'),
      col('severity', 'Severity', 'enum', enumOf('severity')),
      col('milestone', 'Milestone', 'text'),
      col('responsible', 'Responsible', 'contact_ref'),
      col('resources_required', 'Resources required', 'text'),
      col('scheduled_completion', 'Scheduled completion', 'date'),
      col('status', 'Status', 'enum', enumOf('poam_status', required)),
      col('completed_on', 'Completed on', 'date'),
    ],
    logical_key: ['item_id'],
  }),
  define({
    id: REGISTER_DEFINITION_IDS.exceptions,
    key: 'exceptions',
    name: 'Exceptions',
    description: 'Approved departures from controls, with their justification, compensating measures and expiry.',
    owner: 'project',
    kind: 'manual',
    columns: [
      col('exception_id', 'Exception ID', 'string', { ...required, max_length: 32 }),
      col('title', 'Title', 'string', required),
      col('related_control', 'Related control', 'control_ref', required),
      col('justification', 'Justification', 'text', required),
      col('compensating_controls', 'Compensating controls', 'text'),
      col('approved_by', 'Approved by', 'contact_ref'),
      col('approved_on', 'Approved on', 'date'),
      col('expires_on', 'Expires on', 'date'),
      col('status', 'Status', 'enum', enumOf('exception_status', required)),
      col('supporting_document', 'Supporting document', 'document_ref'),
    ],
    logical_key: ['exception_id'],
  }),
  define({
    id: REGISTER_DEFINITION_IDS.assetRegister,
    key: 'asset-register',
    name: 'Asset register',
    description: 'Hardware, software, services and data that make up the system.',
    owner: 'system',
    kind: 'manual',
    columns: [
      col('asset_tag', 'Asset tag', 'string', { ...required, max_length: 64 }),
      col('name', 'Name', 'string', required),
      col('asset_type', 'Asset type', 'enum', enumOf('asset_type')),
      col('location', 'Location', 'string'),
      col('owner_contact', 'Owner', 'contact_ref'),
      col('classification', 'Classification', 'enum', enumOf('classification')),
      col('related_control', 'Related control', 'control_ref'),
      col('supporting_document', 'Supporting document', 'document_ref'),
      col('notes', 'Notes', 'text'),
      col('decommissioned_on', 'Decommissioned on', 'date'),
    ],
    logical_key: ['asset_tag'],
  }),
  define({
    id: REGISTER_DEFINITION_IDS.thirdPartyRegister,
    key: 'third-party-register',
    name: 'Third-party register',
    description: 'Suppliers and service providers of the system, their access and their assessed risk.',
    owner: 'system',
    kind: 'manual',
    columns: [
      col('supplier_name', 'Supplier', 'string', required),
      col('service_description', 'Service', 'text'),
      col('contract_reference', 'Contract reference', 'string'),
      col('privileged_access', 'Privileged access', 'boolean'),
      col('contact', 'Contact', 'contact_ref'),
      col('assessed_on', 'Assessed on', 'date'),
      col('risk_rating', 'Risk rating', 'enum', enumOf('risk_rating')),
      col('notes', 'Notes', 'text'),
    ],
    logical_key: ['supplier_name'],
  }),
  define({
    // Contacts are system-scoped, so an organisation-wide register carries its people inline instead of contact_ref columns.
    id: REGISTER_DEFINITION_IDS.contactsDirectory,
    key: 'contacts-directory',
    name: 'Contacts directory',
    description: 'People and organisations to reach across the organisation, shared with each of its systems.',
    owner: 'organisation',
    kind: 'manual',
    columns: [
      col('full_name', 'Full name', 'string', required),
      col('organisation_name', 'Organisation', 'string', required),
      col('role', 'Role', 'string'),
      col('email', 'Email', 'string', { max_length: 254 }),
      col('phone', 'Phone', 'string', { max_length: 40 }),
      col('category', 'Category', 'enum', enumOf('contact_category')),
      col('after_hours', 'Reachable after hours', 'boolean'),
      col('notes', 'Notes', 'text'),
    ],
    logical_key: ['full_name', 'organisation_name'],
  }),
  define({
    id: REGISTER_DEFINITION_IDS.controlSummary,
    key: 'control-summary',
    name: 'Control summary',
    description:
      "Computed from the project's controls: how many controls have each applicability, implementation status, workflow state and assessment outcome. Read-only.",
    owner: 'project',
    kind: 'generated',
    columns: [
      col('dimension', 'Dimension', 'enum', enumOf('summary_dimension', required)),
      col('value', 'Value', 'string', { ...required, max_length: 64 }),
      col('controls', 'Controls', 'integer', { ...required, counts: 'controls' }),
    ],
    logical_key: ['dimension', 'value'],
  }),
];

const BY_ID = new Map(REGISTER_DEFINITIONS.map((d) => [d.id, d]));

export const definitionById = (id: string): RegisterDefinition | undefined => BY_ID.get(id);

/**
 * Definitions reachable through a system: its own manual registers and the organisation's shared
 * one. Generated and project-owned definitions exist only inside projects.
 */
export const atSystemLevel = (d: RegisterDefinition): boolean => d.kind === 'manual' && (d.owner === 'system' || d.owner === 'organisation');

export const RegisterColumnView = once(() =>
  z
    .object({
      id: z.string(),
      label: z.string(),
      type: z.enum(COLUMN_TYPES),
      required: z.boolean(),
      enum_id: z.string().nullable(),
      max_length: z.number().int().nullable(),
    })
    .meta({ id: 'RegisterColumn' }),
);

export const RegisterDefinitionView = once(() =>
  z
    .object({
      id: z.string(),
      key: z.string(),
      name: z.string(),
      description: z.string(),
      owner: z.enum(REGISTER_OWNERS),
      kind: z.enum(REGISTER_KINDS),
      columns: z.array(RegisterColumnView()),
      enums: z.record(z.string(), z.array(z.string())).meta({ description: 'Allowed values of each enum_id the columns name.' }),
      logical_key: z.array(z.string()).meta({ description: 'Columns whose combined value is unique within the owner scope.' }),
      writable: z.boolean().meta({ description: 'Whether this credential may create and edit rows of this definition here.' }),
    })
    .meta({ id: 'RegisterDefinition', description: 'A register manifest: column IDs and types, required columns, enums and the logical key.' }),
);
export type RegisterDefinitionView = z.infer<ReturnType<typeof RegisterDefinitionView>>;

export function manifestOf(d: RegisterDefinition, writable: boolean): RegisterDefinitionView {
  return {
    id: d.id,
    key: d.key,
    name: d.name,
    description: d.description,
    owner: d.owner,
    kind: d.kind,
    columns: d.columns.map((c) => ({
      id: c.id,
      label: c.label,
      type: c.type,
      required: c.required,
      enum_id: c.enum_id ?? null,
      max_length: c.max_length ?? null,
    })),
    enums: Object.fromEntries(Object.entries(d.enums).map(([id, values]) => [id, [...values]])),
    logical_key: [...d.logical_key],
    writable,
  };
}
