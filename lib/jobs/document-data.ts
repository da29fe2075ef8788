import { publicUrl } from '../config.js';
import { CLASSIFICATIONS } from '../domain/classifications.js';
import type { StoredControl } from '../domain/controls.js';
import {
  documentControl,
  type DocumentImage,
  type DocumentModel,
  type DocumentContact,
  type DocumentContactRef,
  type DocumentPlan,
  type DocumentVersion,
  type DocumentPoamRow,
  type DocumentProviderRelease,
  type DocumentRegister,
  type DocumentRiskRow,
} from '../domain/document-model.js';
import { CATALOGUE, type StoredDocument } from '../domain/documents.js';
import type { StoredEvidence } from '../domain/evidence.js';
import { LIBRARY_DEFINITIONS } from '../domain/library-definitions.js';
import { toContact } from '../store/contacts.js';
import { documentsCollection, toDocument } from '../store/documents.js';
import { workingCopySummaries } from '../store/library.js';
import type { StoredProject } from '../domain/projects.js';
import type { RowData } from '../domain/register-rows.js';
import { REGISTER_DEFINITION_IDS, REGISTER_DEFINITIONS } from '../domain/registers.js';
import { getObject } from '../files/storage.js';
import { releaseCatalogue } from '../store/catalogue-entries.js';
import { toRelease as toCatalogueRelease } from '../store/catalogue-releases.js';
import { toControl } from '../store/control-entity.js';
import { joinControls } from '../store/control-text.js';
import { toEvidence } from '../store/evidence.js';
import { asFileOwner } from '../store/file-owners.js';
import { toOrganisation } from '../store/organisations.js';
import { toProvider, toRelease as toAssuranceRelease } from '../store/providers.js';
import { toSystem } from '../store/systems.js';
import { keys, prefixes } from '../store/keys.js';
import { getMany, keyString, queryAll, type Item } from '../store/read.js';
import { controlSummaryRowCount } from '../store/control-summary.js';
import { asContext } from '../store/contexts.js';
import { collectionCounts } from '../store/counters.js';
import { asEngagement, asScope } from '../store/scopes.js';
import { allRows, countersKey, rowCount } from '../store/registers.js';

const ENGAGEMENT_FIELDS = ['engagement_reference', 'client_name', 'assessor_organisation', 'lead_assessor_name', 'start_date', 'end_date'] as const;
/** Above the ISM's size with room to spare; a project never has more controls than its release has entries. */
const CONTROL_CAP = 5_000;
const EVIDENCE_CAP = 5_000 * 51;

/** An image the scan pipeline released (ready), by its owner record: the only assets a PDF embeds. */
async function imageOf(item: Item | undefined): Promise<DocumentImage | null> {
  const owner = asFileOwner(item);
  if (owner?.file_status !== 'ready') return null;
  const type = owner.detected_type;
  if (type !== 'image/png' && type !== 'image/jpeg') return null;
  const bytes = await getObject(owner.s3_key);
  if (!bytes) return null;
  return { media_type: type, bytes, width: owner.width || null, height: owner.height || null };
}

/**
 * Reads everything a document may show from one project, with the generation's options applied:
 * notes the options leave out are null here, so no renderer can show them.
 */
export async function gatherModel(project: StoredProject, document: StoredDocument, now: Date): Promise<DocumentModel> {
  const g = document.generation;
  const wanted = [
    keys.organisation(project.organisation_id),
    keys.system(project.organisation_id, project.system_id),
    keys.projectScope(project.id),
    keys.projectEngagement(project.id),
    keys.organisationContext(project.organisation_id),
    keys.systemContext(project.system_id),
    keys.organisationLogo(project.organisation_id),
    keys.projectDiagram(project.id),
    keys.catalogueRelease(project.ism_release_id),
    countersKey({ owner: 'project', projectId: project.id }),
    countersKey({ owner: 'system', systemId: project.system_id }),
    countersKey({ owner: 'organisation', organisationId: project.organisation_id }),
  ];
  const projectPk = keys.project(project.id).PK;
  const [found, controlItems, evidenceItems, poamRows, riskRows, catalogue, documentItems, contactItems, plans] = await Promise.all([
    getMany(wanted),
    queryAll(
      { KeyConditionExpression: 'PK = :pk AND begins_with(SK, :p)', ExpressionAttributeValues: { ':pk': projectPk, ':p': prefixes.control } },
      CONTROL_CAP,
    ),
    queryAll({ KeyConditionExpression: 'PK = :pk AND begins_with(SK, :p)', ExpressionAttributeValues: { ':pk': projectPk, ':p': 'EVIDENCE#' } }, EVIDENCE_CAP),
    allRows({ owner: 'project', projectId: project.id }, REGISTER_DEFINITION_IDS.poam),
    allRows({ owner: 'project', projectId: project.id }, REGISTER_DEFINITION_IDS.riskRegister),
    releaseCatalogue(project.ism_release_id),
    queryAll({
      KeyConditionExpression: 'PK = :pk AND begins_with(SK, :p)',
      ExpressionAttributeValues: { ':pk': projectPk, ':p': documentsCollection(project.id).prefix },
    }),
    queryAll({
      KeyConditionExpression: 'PK = :pk AND begins_with(SK, :p)',
      ExpressionAttributeValues: { ':pk': keys.contact(project.system_id, '').PK, ':p': prefixes.contact },
    }),
    workingCopySummaries(project.id),
  ]);
  const item = (i: number) => found.get(keyString(wanted[i]!));
  const [organisation, system, scope, engagement, orgContext, systemContext, logo, diagram, release] = wanted.slice(0, 9).map((_, i) => item(i));
  const engagementData = asEngagement(engagement)?.data;
  const evidenceByControl = new Map<string, StoredEvidence[]>();
  for (const e of evidenceItems) {
    if (typeof e.id !== 'string') continue;
    const stored = toEvidence(e);
    evidenceByControl.set(stored.control_id, [...(evidenceByControl.get(stored.control_id) ?? []), stored]);
  }
  const stored = controlItems.map(toControl).sort((a, b) => a.position - b.position);
  const [logoImage, diagramImage, providerReleases, contacts, controls] = await Promise.all([
    imageOf(logo),
    imageOf(diagram),
    providerReleasesOf(stored),
    contactNames(
      [...poamRows, ...riskRows].map((r) => r.row),
      project.system_id,
    ),
    joinControls(project.ism_release_id, stored),
  ]);
  const counters = { project: collectionCounts(item(9)), system: collectionCounts(item(10)), organisation: collectionCounts(item(11)) };
  const registers: DocumentRegister[] = REGISTER_DEFINITIONS.map((d) => ({
    key: d.key,
    title: d.name,
    owner: d.owner,
    rows: d.kind === 'generated' ? controlSummaryRowCount() : rowCount(counters[d.owner], d.id),
  }));
  const generatedBy = { id: g.requested_by, name: g.requested_by_name };
  return {
    document: {
      key: document.document_key,
      title: CATALOGUE[document.document_key].title,
      output: g.options.output,
      generation_id: g.id,
      generated_at: now.toISOString(),
      generated_by: generatedBy,
      approved_by: g.approved_by ? { id: g.approved_by, name: g.approved_by_name ?? '' } : null,
      approved_at: g.approved_at,
    },
    options: {
      draft_watermark: g.options.draft_watermark,
      show_implementation_notes: g.options.show_implementation_notes,
      show_assessor_notes: g.options.show_assessor_notes,
    },
    marking: CLASSIFICATIONS.find((c) => c.code === project.classification)!,
    organisation: documentOrganisation(project, organisation),
    system: documentSystem(project, system),
    project: {
      id: project.id,
      name: project.name,
      description: project.description,
      classification: project.classification,
      essential_eight_target: project.essential_eight_target,
    },
    release: documentRelease(project, release),
    scope: asScope(scope)?.data ?? {},
    context: {
      organisation: asContext(orgContext)?.data ?? {},
      system: asContext(systemContext)?.data ?? {},
    },
    engagement: Object.fromEntries(ENGAGEMENT_FIELDS.map((f) => [f, engagementData?.[f] ?? null])),
    controls: controls.map((c) => documentControl(c, evidenceByControl.get(c.id) ?? [], g.options, catalogue.get(c.catalogue_id))),
    registers,
    images: { logo: logoImage, diagram: diagramImage },
    public_url: g.public_url ?? publicUrl(),
    provider_releases: providerReleases,
    poam: poamRows.map(({ row }) => poamOf(row, contacts)),
    risks: riskRows.map(({ row }) => riskOf(row, contacts)),
    versions: documentItems
      .map(toDocument)
      .flatMap((d) => (d.output && d.output.generation_id !== g.id ? [versionOf(d)] : []))
      .sort((a, b) => a.generated_at.localeCompare(b.generated_at)),
    contacts: contactItems
      .map(toContact)
      .filter((c) => c.status === 'active')
      .map(({ id, name, role, email, phone, organisation_name }): DocumentContact => ({ id, name, role, email, phone, organisation_name }))
      .sort((a, b) => a.name.localeCompare(b.name)),
    related_plans: LIBRARY_DEFINITIONS.flatMap((d): DocumentPlan[] => {
      const copy = plans.get(d.id);
      return copy ? [{ key: d.key, title: d.title, kind: d.kind, date_live: copy.date_live, review_due: copy.review_due, updated_at: copy.updated_at }] : [];
    }),
  };
}

/**
 * What a document shows of the project's organisation, system and catalogue release, each read
 * with its schema, so that a malformed one fails the generation with its key instead of printing
 * what it holds. One that is absent shows empty names (the release, the version the project records).
 */
export function documentOrganisation(project: StoredProject, item: Item | undefined): DocumentModel['organisation'] {
  return { id: project.organisation_id, name: item ? toOrganisation(item).name : '' };
}

export function documentSystem(project: StoredProject, item: Item | undefined): DocumentModel['system'] {
  const system = item && toSystem(item);
  return { id: project.system_id, name: system?.name ?? '', short_code: system?.short_code ?? '', description: system?.description ?? null };
}

export function documentRelease(project: StoredProject, item: Item | undefined): DocumentModel['release'] {
  const release = item && toCatalogueRelease(item);
  return {
    id: project.ism_release_id,
    version: release?.version ?? project.ism_release_version,
    title: release?.title ?? 'Information security manual',
    published: release?.published ?? null,
    sample: release?.sample ?? false,
  };
}

/** A document's last completed output as a version of it. */
function versionOf(d: StoredDocument): DocumentVersion {
  const o = d.output!;
  return {
    key: d.document_key,
    title: CATALOGUE[d.document_key].title,
    generation_id: o.generation_id,
    output: o.output,
    generated_at: o.generated_at,
    generated_by: { id: o.generated_by, name: o.generated_by_name },
    approved_by: o.approved_by ? { id: o.approved_by, name: o.approved_by_name ?? '' } : null,
    approved_at: o.approved_at,
  };
}

/** The provider releases the controls' guidance names, with the provider's and the release's names. */
async function providerReleasesOf(controls: StoredControl[]): Promise<DocumentProviderRelease[]> {
  const pairs = new Map(controls.flatMap((c) => (c.provider_guidance ?? []).map((g) => [`${g.provider_id}#${g.release_id}`, g] as const)));
  if (!pairs.size) return [];
  const wanted = [...pairs.values()].flatMap((g) => [keys.externalProvider(g.provider_id), keys.assuranceRelease(g.provider_id, g.release_id)]);
  const found = await getMany(wanted);
  return [...pairs.values()].map((g) =>
    documentProviderRelease(
      g,
      found.get(keyString(keys.externalProvider(g.provider_id))),
      found.get(keyString(keys.assuranceRelease(g.provider_id, g.release_id))),
    ),
  );
}

/** A provider release as documents name it, from its provider and release read with their schemas; by their ids once deleted. */
export function documentProviderRelease(
  g: { provider_id: string; release_id: string },
  providerItem: Item | undefined,
  releaseItem: Item | undefined,
): DocumentProviderRelease {
  const provider = providerItem && toProvider(providerItem);
  const release = releaseItem && toAssuranceRelease(releaseItem);
  return {
    provider_id: g.provider_id,
    provider_name: provider?.name ?? g.provider_id,
    release_id: g.release_id,
    release_name: release?.name ?? g.release_id,
    release_version: release?.version ?? '',
    assessed_on: release?.assessed_on ?? null,
    published_on: release?.published_at?.slice(0, 10) ?? null,
  };
}

const text = (data: RowData, column: string): string | null => (typeof data[column] === 'string' ? (data[column] as string) : null);

const CONTACT_COLUMNS = ['responsible', 'risk_owner'];

/** The names of the contacts the register rows name, by contact id (one read for all of them). */
async function contactNames(rows: { data: RowData }[], systemId: string): Promise<Map<string, string>> {
  const ids = [...new Set(rows.flatMap((r) => CONTACT_COLUMNS.flatMap((c) => text(r.data, c) ?? [])))];
  if (!ids.length) return new Map();
  const found = await getMany(ids.map((id) => keys.contact(systemId, id)));
  return new Map(
    ids.flatMap((id) => {
      const contact = found.get(keyString(keys.contact(systemId, id)));
      return contact ? [[id, toContact(contact).name] as const] : [];
    }),
  );
}

const contactOf = (data: RowData, column: string, names: Map<string, string>): DocumentContactRef | null => {
  const id = text(data, column);
  return id ? { id, name: names.get(id) ?? null } : null;
};

type Row = { id: string; data: RowData; created_at: string; updated_at: string };

/** A POA&M row with its columns typed and its responsible contact named. */
const poamOf = (r: Row, names: Map<string, string>): DocumentPoamRow => ({
  id: r.id,
  item_id: text(r.data, 'item_id') ?? r.id,
  weakness: text(r.data, 'weakness') ?? '',
  related_control: text(r.data, 'related_control'),
  severity: text(r.data, 'severity'),
  milestone: text(r.data, 'milestone'),
  responsible: contactOf(r.data, 'responsible', names),
  resources_required: text(r.data, 'resources_required'),
  scheduled_completion: text(r.data, 'scheduled_completion'),
  status: text(r.data, 'status') ?? 'open',
  completed_on: text(r.data, 'completed_on'),
  created_at: r.created_at,
  updated_at: r.updated_at,
});

/** A risk register row with its columns typed and its owner named. */
const riskOf = (r: Row, names: Map<string, string>): DocumentRiskRow => ({
  id: r.id,
  risk_id: text(r.data, 'risk_id') ?? r.id,
  title: text(r.data, 'title') ?? '',
  description: text(r.data, 'description'),
  likelihood: text(r.data, 'likelihood'),
  consequence: text(r.data, 'consequence'),
  inherent_rating: text(r.data, 'inherent_rating'),
  treatment: text(r.data, 'treatment'),
  residual_rating: text(r.data, 'residual_rating'),
  risk_owner: contactOf(r.data, 'risk_owner', names),
  related_control: text(r.data, 'related_control'),
  status: text(r.data, 'status') ?? 'open',
  review_due: text(r.data, 'review_due'),
});
