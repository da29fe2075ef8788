import * as z from 'zod';
import { multiLine, singleLine } from '../validation.js';
import { eachEntry, firstIssue } from './json.js';
import {
  controlIdOf,
  type ImportedRow,
  ImportRejected,
  implementationStatusOf,
  LIMITS,
  type ParsedImport,
  type Responsibility,
  responsibilityOf,
  textOrNull,
} from './rows.js';

/**
 * An OSCAL component definition's control implementations as assertions: each implemented
 * requirement (of every component, in document order) is one row, numbered by that order.
 * Its `description` is the implementation statement and its `remarks` the consumer guidance;
 * the `responsibility` prop (the service's words or their spellings) or OSCAL's
 * `control-origination` prop names the responsible party, and `implementation-status` the
 * status. A component definition is the provider's, so it carries no assessor's finding.
 * Everything else OSCAL allows there is ignored.
 */
const Prop = z.object({ name: singleLine(), value: singleLine().max(LIMITS.cell) });
const Requirement = z.object({
  'control-id': singleLine().max(100),
  description: multiLine().max(LIMITS.cell),
  props: z.array(Prop).optional(),
  remarks: multiLine().max(LIMITS.cell).optional(),
});
const Definition = z.object({
  'component-definition': z.object({
    components: z.array(z.object({ 'control-implementations': z.array(z.object({ 'implemented-requirements': z.array(z.unknown()) })).optional() })).optional(),
  }),
});

const ORIGINATION: Record<string, Responsibility> = {
  'sp-corporate': 'provider',
  'sp-system': 'provider',
  inherited: 'provider',
  'customer-configured': 'consumer',
  'customer-provided': 'consumer',
  shared: 'shared',
};

export const isComponentDefinition = (json: unknown) => typeof json === 'object' && json !== null && 'component-definition' in json;

function rowOf(raw: unknown, row: number): ImportedRow | string {
  const requirement = Requirement.safeParse(raw);
  if (!requirement.success) return firstIssue(requirement.error.issues);
  const r = requirement.data;
  const controlId = controlIdOf(r['control-id']);
  if (!controlId) return `control-id: "${r['control-id'].slice(0, 40)}" is not an ISM control identifier`;
  const prop = (name: string) => r.props?.find((p) => p.name === name)?.value;
  const named = prop('responsibility');
  const origination = prop('control-origination');
  const responsibility = named !== undefined ? responsibilityOf(named) : origination !== undefined ? (ORIGINATION[origination] ?? null) : null;
  if (!responsibility)
    return (named ?? origination)
      ? `responsibility: "${named ?? origination}" is not provider, consumer, shared or not applicable`
      : 'responsibility: missing (a responsibility or control-origination prop)';
  const rawStatus = prop('implementation-status');
  const status = rawStatus === undefined ? null : implementationStatusOf(rawStatus);
  if (rawStatus !== undefined && !status) return `implementation-status: "${rawStatus}" is not a recognised status`;
  return {
    row,
    control_id: controlId,
    responsibility,
    implementation_status: status,
    implementation_statement: textOrNull(r.description),
    consumer_guidance: textOrNull(r.remarks),
    assessor_finding: null,
    control_text: null,
    ism_version: null,
  };
}

export function parseComponentDefinition(json: unknown): ParsedImport {
  const definition = Definition.safeParse(json);
  if (!definition.success) throw new ImportRejected('invalid_component_definition', firstIssue(definition.error.issues));
  const requirements = (definition.data['component-definition'].components ?? []).flatMap((c) =>
    (c['control-implementations'] ?? []).flatMap((ci) => ci['implemented-requirements']),
  );
  return eachEntry(requirements, rowOf);
}
