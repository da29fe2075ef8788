import type { Classification } from '../../domain/classifications.js';
import type { DocumentControl, DocumentEvidence, DocumentModel, DocumentPoamRow, Person } from '../../domain/document-model.js';
import { evidenceUrl } from '../../domain/evidence.js';
import { writeJson } from '../json-stream.js';
import { labelOf, OUTCOME_LABELS } from '../labels.js';
import type { Renderer } from '../renderer.js';
import { uuidsOf } from './ids.js';

/** OSCAL version of the documents this product writes; tests validate them against NIST's 1.1.3 schemas. */
export const OSCAL_VERSION = '1.1.3';

/**
 * The namespace of the properties, facets and system identifiers this product adds (OSCAL's own
 * names carry no ns): a URL under the installation's public address, as FedRAMP names its own
 * (https://fedramp.gov/ns/oscal) under its domain. OSCAL SDKs read ns as a URL with a host:
 * compliance-trestle refuses a `urn:`.
 */
export const namespaceOf = (model: Pick<DocumentModel, 'public_url'>): string => `${model.public_url}/ns/oscal`;

/** A property in this product's namespace. */
export type Own = (name: string, value: string) => Prop;
export const ownOf = (model: Pick<DocumentModel, 'public_url'>): Own => {
  const ns = namespaceOf(model);
  return (name, value) => ({ name, value, ns });
};

/** The system as the installation identifies it: its ULID, assigned under this product's namespace (as FedRAMP assigns its ids under its own). */
export const systemIdOf = (model: DocumentModel) => ({ 'identifier-type': namespaceOf(model), id: model.system.id });

/** The API's address of an evidence item: absolute, so that a reader of the document resolves it against the installation. */
/**
 * The API's address of a cited item: the version its control's capture pinned, which stays readable
 * after the live item is replaced or deleted, or else the live item, cited for what it is.
 */
export function evidenceHref(model: DocumentModel, controlId: string, e: DocumentEvidence): string {
  const live = `${model.public_url}${evidenceUrl({ project_id: model.project.id, control_id: controlId, id: e.id })}`;
  return e.citation.kind === 'pinned' ? `${live}/versions/${e.citation.version}` : live;
}

/** The SHA-256 the control's capture pinned, or null: nothing the capture did not pin is cited as pinned. */
export const pinnedDigest = (e: DocumentEvidence): string | null => (e.citation.kind === 'pinned' ? e.citation.sha256 : null);

export interface Prop {
  name: string;
  value: string;
  ns?: string;
}
export interface Party {
  uuid: string;
  type: 'person' | 'organization';
  name: string;
}
export interface ResponsibleParty {
  'role-id': string;
  'party-uuids': string[];
}
export interface Resource {
  uuid: string;
  title: string;
  description?: string;
  props?: Prop[];
  citation?: { text: string };
  rlinks?: { href: string; 'media-type'?: string; hashes?: { algorithm: string; value: string }[] }[];
  base64?: { filename: string; 'media-type': string; value: string };
}

export type Uuid = (...identity: string[]) => string;

/** An OSCAL JSON template: the document built from the model with the generation's UUIDs and this product's properties, streamed out. */
export const oscalRenderer = (document: (model: DocumentModel, uuid: Uuid, own: Own) => unknown): Renderer => ({
  format: 'json',
  mediaType: 'application/json',
  extension: 'json',
  render: (model, out) => writeJson(out, document(model, uuidsOf(model.document.generation_id), ownOf(model))),
});

/** A name as OSCAL's string type takes it (no surrounding whitespace, no line break), or null when blank. */
export const line = (value: string | null | undefined): string | null => value?.replace(/\s+/g, ' ').trim() || null;

/** Prose, or null when blank, so that a fallback speaks rather than an empty description. */
export const prose = (value: unknown): string | null => (typeof value === 'string' && value.trim() ? value : null);

/** An OSCAL array, or nothing: the schemas refuse empty arrays. */
export const some = <T>(items: T[]): T[] | undefined => (items.length ? items : undefined);

/** A date or date-time of the model as an OSCAL date-time (which needs a time zone): a bare date is that day's start in UTC. */
export function dateTime(value: string | null | undefined, fallback: string): string {
  if (value && /^\d{4}-\d{2}-\d{2}$/.test(value)) return `${value}T00:00:00Z`;
  if (value && /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/.test(value)) return value;
  return fallback;
}

export const personParty = (uuid: Uuid, person: Person): Party => ({
  uuid: uuid('party', 'person', person.id),
  type: 'person',
  name: line(person.name) ?? 'Unnamed person',
});
export const organisationParty = (uuid: Uuid, model: DocumentModel): Party => ({
  uuid: uuid('party', 'organisation', model.organisation.id),
  type: 'organization',
  name: line(model.organisation.name) ?? 'Unnamed organisation',
});

/**
 * The metadata both documents share: the protective marking as OSCAL's `marking` property, the
 * output (draft or final) and the generation, the organisation the document is prepared for, the
 * person who generated it and, for final output, the person who approved it.
 */
export function metadataOf(
  model: DocumentModel,
  uuid: Uuid,
  extra: { roles: { id: string; title: string }[]; parties: Party[]; responsible: ResponsibleParty[] },
) {
  const organisation = organisationParty(uuid, model);
  const preparer = personParty(uuid, model.document.generated_by);
  const approver = model.document.approved_by ? personParty(uuid, model.document.approved_by) : null;
  const own = ownOf(model);
  const parties = new Map([organisation, preparer, ...(approver ? [approver] : []), ...extra.parties].map((p) => [p.uuid, p]));
  return {
    title: `${model.document.title}: ${model.system.name}`,
    'last-modified': model.document.generated_at,
    version: model.document.generation_id,
    'oscal-version': OSCAL_VERSION,
    props: [
      { name: 'marking', value: model.marking.name },
      own('document-output', model.document.output),
      own('generation-id', model.document.generation_id),
      own('project-id', model.project.id),
      ...(model.document.approved_at ? [own('approved-at', model.document.approved_at)] : []),
    ],
    roles: [
      { id: 'prepared-by', title: 'Prepared by' },
      { id: 'prepared-for', title: 'Prepared for' },
      ...(approver ? [{ id: 'content-approver', title: 'Approved by' }] : []),
      ...extra.roles,
    ],
    parties: [...parties.values()],
    'responsible-parties': [
      { 'role-id': 'prepared-by', 'party-uuids': [preparer.uuid] },
      { 'role-id': 'prepared-for', 'party-uuids': [organisation.uuid] },
      ...(approver ? [{ 'role-id': 'content-approver', 'party-uuids': [approver.uuid] }] : []),
      ...extra.responsible,
    ],
  };
}

/** OSCAL's implementation states for the statuses that have one; `not_implemented` has none and keeps only its own property. */
export const IMPLEMENTATION_STATES: Readonly<Record<string, string>> = {
  implemented: 'implemented',
  partially_implemented: 'partial',
  planned: 'planned',
  alternate_control: 'alternative',
  ec: 'implemented',
};

/** The system as the component "this-system"; the project does not record its lifecycle state, so the state says so. */
export function systemComponent(model: DocumentModel, uuid: Uuid) {
  return {
    uuid: uuid('component', 'this-system'),
    type: 'this-system',
    title: model.system.name,
    description: prose(model.system.description) ?? `The system ${model.system.name} as a whole.`,
    status: UNKNOWN_STATE,
  };
}

export const UNKNOWN_STATE = { state: 'other', remarks: 'The lifecycle state of the system is not recorded; it is under security assessment.' };

/** ASD's names for the baseline profile of each classification (ISM_PROTECTED-baseline_profile.json). */
const PROFILE_NAMES: Record<Classification, string> = {
  NC: 'NON_CLASSIFIED',
  OS: 'OFFICIAL_SENSITIVE',
  P: 'PROTECTED',
  S: 'SECRET',
  TS: 'TOP_SECRET',
};

/**
 * The baseline profile of the project's classification, as a back-matter resource that an
 * import-profile href names: the official file of the release on ASD's site, or, for the sample
 * catalogue this product ships, the sample's own file name without any ASD address.
 */
export function profileResource(model: DocumentModel, uuid: Uuid): Resource {
  const { release, project } = model;
  const file = `${release.sample ? 'SAMPLE' : 'ISM'}_${PROFILE_NAMES[project.classification]}-baseline_profile.json`;
  const href = release.sample ? file : `https://www.cyber.gov.au/ism/oscal/v${release.version}/artifacts/${file}`;
  return {
    uuid: uuid('resource', 'baseline-profile'),
    title: `${release.title} ${release.version}: ${model.marking.name} baseline (${file})`,
    description: release.sample
      ? `The ${model.marking.name} baseline of the sample catalogue ${release.version}, which is sample data and not the ISM.`
      : `The ${model.marking.name} baseline profile of the Information security manual release ${release.version}, published by the Australian Signals Directorate.`,
    props: [
      { name: 'type', value: 'standard' },
      { name: 'version', value: release.version },
      ...(release.published ? [{ name: 'published', value: release.published }] : []),
    ],
    citation: { text: `${release.title}, release ${release.version}, ${file}` },
    rlinks: [{ href, 'media-type': 'application/json' }],
  };
}

/**
 * The id of a control's statement part in the ISM catalogue, which findings target: ASD's
 * catalogue (and the sample) give every control one statement part, `<control id>_smt`.
 */
export const statementIdOf = (c: Pick<DocumentControl, 'catalogue_id'>): string => `${c.catalogue_id}_smt`;

/**
 * Inherited: effective through a selected provider release (`ec`), carried by a provider alone
 * (its assertion's responsibility), or a common control.
 */
export const inheritedControl = (c: DocumentControl): boolean =>
  c.implementation_status === 'ec' || c.assessment.outcome === 'common_control' || c.provider_guidance.some((g) => g.responsibility === 'provider');

/** A finding's target: the control's statement part, satisfied or not, with the control's implementation state. */
export function statementTarget(c: DocumentControl, own: Own, satisfied: boolean) {
  const state = c.implementation_status ? IMPLEMENTATION_STATES[c.implementation_status] : undefined;
  return {
    type: 'statement-id',
    'target-id': statementIdOf(c),
    props: [own('control-id', c.catalogue_id)],
    status: { state: satisfied ? 'satisfied' : 'not-satisfied', reason: satisfied ? 'pass' : 'fail' },
    'implementation-status': state ? { state } : undefined,
  };
}

/** What a finding says of an assessed control: outcome, severity, maturity and origination, at the control's statement. */
export function findingOf(c: DocumentControl, uuid: Uuid, own: Own, satisfied: boolean) {
  const outcome = labelOf(OUTCOME_LABELS, c.assessment.outcome);
  return {
    uuid: uuid('finding', c.id),
    title: `${c.label}: ${outcome}`,
    description: prose(c.assessment.rationale) ?? `${c.label} was assessed as ${outcome}; no rationale is recorded.`,
    props: [
      own('outcome', c.assessment.outcome!),
      ...(c.assessment.severity ? [own('severity', c.assessment.severity)] : []),
      ...(c.assessment.maturity_level ? [own('maturity-level', c.assessment.maturity_level)] : []),
      ...(inheritedControl(c) ? [own('control-origination', 'inherited')] : []),
      ...c.provider_guidance.map((g) => own('provider-release-id', g.release_id)),
    ],
    target: statementTarget(c, own, satisfied),
  };
}

/** The risk a control that is not satisfied poses, as its assessment states it, with the assessment's severity. */
export function controlRisk(model: DocumentModel, c: DocumentControl, actor: string) {
  const outcome = labelOf(OUTCOME_LABELS, c.assessment.outcome);
  return {
    title: `${c.label} not satisfied: ${outcome}`,
    description: prose(c.assessment.rationale) ?? `${c.label} was assessed as ${outcome}.`,
    statement: `${c.label} is not satisfied (${outcome}), so the system does not meet this requirement: ${c.statement}`,
    characterizations: severityOf(model, c.assessment.severity, actor),
  };
}

/** A risk's severity as its actor characterized it, a facet in this product's namespace; nothing without a severity. */
export function severityOf(model: DocumentModel, severity: string | null, actor: string) {
  return severity
    ? [{ origin: { actors: [{ type: 'party', 'actor-uuid': actor }] }, facets: [{ name: 'severity', system: namespaceOf(model), value: severity }] }]
    : undefined;
}

/** The POA&M rows about a control: those naming it by its ULID or its ISM reference code. */
export const poamRowsOf = (model: DocumentModel, c: Pick<DocumentControl, 'id' | 'label'>): DocumentPoamRow[] =>
  model.poam.filter((r) => r.related_control === c.id || r.related_control === c.label);

/** When the earliest of the rows that still plan work (open or in progress) is due, as an OSCAL risk deadline; none without one. */
export function deadlineOf(model: DocumentModel, rows: readonly DocumentPoamRow[]): string | undefined {
  const due = rows.flatMap((r) => ((r.status === 'open' || r.status === 'in_progress') && r.scheduled_completion ? [r.scheduled_completion] : [])).sort()[0];
  return due ? dateTime(due, model.document.generated_at) : undefined;
}

/**
 * The OSCAL risk status its POA&M rows give a risk: remediating while a row is in progress, open
 * while one is open or none plans anything, closed once every row is completed. A cancelled row
 * remediates nothing, so it leaves the risk open.
 */
export function riskStatusOf(rows: readonly DocumentPoamRow[]): 'open' | 'remediating' | 'closed' {
  if (rows.some((r) => r.status === 'in_progress')) return 'remediating';
  if (rows.length && rows.every((r) => r.status === 'completed')) return 'closed';
  return 'open';
}
