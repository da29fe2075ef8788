import type { Classification } from '../../domain/classifications.js';
import type { DocumentModel, Person } from '../../domain/document-model.js';

/** OSCAL version of the documents this product writes; tests validate them against NIST's 1.1.3 schemas. */
export const OSCAL_VERSION = '1.1.3';
/** Namespace of the properties this product adds; OSCAL's own names carry no ns. */
export const NS = 'urn:assessment-operations-api:oscal';

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

export const own = (name: string, value: string): Prop => ({ name, value, ns: NS });

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
