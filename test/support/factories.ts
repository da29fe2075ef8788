import { createHash } from 'node:crypto';
import { newUlid } from '../../lib/domain/ids.js';
import { type UploadRecord, uploadPut } from '../../lib/files/uploads.js';
import { importRelease } from '../../lib/catalogue/store.js';
import { type AssertionContent, type AssertionStatus, assertionId, type StoredAssertion } from '../../lib/domain/assertions.js';
import type { StoredControl } from '../../lib/domain/controls.js';
import type { StoredGeneration } from '../../lib/domain/documents.js';
import { metadataOf, type StoredEvidence } from '../../lib/domain/evidence.js';
import type { ImportedRow } from '../../lib/domain/imports/rows.js';
import type { CatalogueEntry, ParsedRelease } from '../../lib/domain/oscal.js';
import type { StoredProject } from '../../lib/domain/projects.js';
import type { StoredArtefact } from '../../lib/domain/provider-artefacts.js';
import type { SelectedAssertion } from '../../lib/domain/provider-effects.js';
import { newRelease, publishedRelease, type StoredProvider, type StoredRelease } from '../../lib/domain/providers.js';
import type { StoredRegisterReview } from '../../lib/domain/register-reviews.js';
import type { StoredRegisterRow } from '../../lib/domain/register-rows.js';
import type { RepositoryConnection } from '../../lib/domain/repositories.js';
import { REGISTER_DEFINITION_IDS } from '../../lib/domain/registers.js';
import type { StoredSystem } from '../../lib/domain/systems.js';
import { openTask, type StoredTask, type StoredTaskComment } from '../../lib/domain/tasks.js';
import { assertionWrites } from '../../lib/store/assertions.js';
import { itemAbsent } from '../../lib/store/conditions.js';
import { controlItem } from '../../lib/store/controls.js';
import type { ConsoleSession } from '../../lib/store/console.js';
import { type AccessRecord, type AccessScope, accessKey, createUser as createStoredUser, type TokenRecord, type UserRecord } from '../../lib/store/identity.js';
import type { PasskeyRecord } from '../../lib/store/passkeys.js';
import { evidenceCreateWrites } from '../../lib/store/evidence.js';
import type { FileOwner } from '../../lib/store/file-owners.js';
import { createOrganisationWrites, newOrganisation, type StoredOrganisation } from '../../lib/store/organisations.js';
import { createProjectWrites } from '../../lib/store/projects.js';
import type { RecalculationMarker } from '../../lib/store/recalculations.js';
import { createProviderWrites, createReleaseWrites, publishReleaseWrites } from '../../lib/store/providers.js';
import { createRowWrites, type RowScope } from '../../lib/store/registers.js';
import { createSystemWrites } from '../../lib/store/systems.js';
import { createTaskWrites } from '../../lib/store/tasks.js';
import { keys } from '../../lib/store/keys.js';
import { commit } from '../../lib/store/transact.js';
import type { Item } from '../../lib/store/read.js';

/**
 * Test data in one place, in the manner of Outline's server/test/factories.ts: each `build*` returns
 * a valid entity as the service stores it, with any field overridden; each `create*` writes one
 * through the same store writes the operations use and returns it. Built entities carry fresh
 * ULIDs and one fixed instant, so that a unit test names only what it is about.
 */

/** The instant every built entity was created and last updated at. */
export const BUILT_AT = '2026-01-01T00:00:00.000Z';

/** Store writes whose limit or claim a fixture never reaches: reaching it is a broken test. */
const never = () => new Error('a factory write met a condition it should never meet');
const NO_LIMIT = Number.MAX_SAFE_INTEGER;

export function buildOrganisation(over: Partial<StoredOrganisation> = {}): StoredOrganisation {
  const id = over.id ?? newUlid();
  return {
    ...newOrganisation({
      id,
      name: `Organisation ${id}`,
      slug: `org-${id.toLowerCase()}`,
      timezone: 'Australia/Sydney',
      createdBy: 'factory',
      now: new Date(BUILT_AT),
    }),
    ...over,
  };
}

/** A token as issued today, an organisation's unless `over` says otherwise (its keys and index attributes are the caller's to add). */
export function buildToken(over: Partial<TokenRecord> = {}): TokenRecord {
  const type = over.type ?? 'organisation';
  return {
    id: newUlid(),
    user_id: newUlid(),
    type,
    ...(type === 'organisation' ? { organisation_id: newUlid() } : {}),
    name: 'CI',
    abilities: ['manage-org-hierarchy', 'view-projects'],
    read_only: false,
    expires_at: '2027-01-01T00:00:00.000Z',
    created_at: BUILT_AT,
    secret_hash: 'ab12',
    ...over,
  };
}

/** An active user of the installation who is no super user and has never re-enrolled. */
export function buildUser(over: Partial<UserRecord> = {}): UserRecord {
  const id = over.id ?? newUlid();
  return { id, email: `${id.toLowerCase()}@test.invalid`, name: 'Test User', status: 'active', super_user: false, created_at: BUILT_AT, ...over };
}

/** A user's access at a scope, as grantAccess stores it (a project's names the project's organisation when `organisationId` is given). */
export function buildAccess(scope: AccessScope, over: { user_id?: string; permissions?: string[]; organisationId?: string } = {}): AccessRecord {
  const held = { user_id: over.user_id ?? newUlid(), permissions: over.permissions ?? ['view-projects'], granted_at: BUILT_AT };
  if (scope.kind === 'installation') return { ...held, scope: 'installation' };
  if (scope.kind === 'organisation') return { ...held, scope: 'organisation', organisation_id: scope.id };
  return { ...held, scope: 'project', project_id: scope.id, ...(over.organisationId ? { organisation_id: over.organisationId } : {}) };
}

/** A user's access at a scope as grantAccess stores it, under its key. */
export const storedAccess = (userId: string, scope: AccessScope, permissions: string[]): Item => ({
  ...accessKey(userId, scope),
  entity: 'access',
  ...buildAccess(scope, { user_id: userId, permissions }),
});

/** A pending recalculation of a system's projects, requested once at BUILT_AT by a project credential, under its key. */
export function buildRecalculationMarker(over: Partial<RecalculationMarker> = {}): RecalculationMarker {
  const systemId = newUlid();
  return {
    ...keys.applicabilityRecalculation(systemId),
    subject: { system_id: systemId },
    requested_at: BUILT_AT,
    last_requested_at: BUILT_AT,
    requested_by: newUlid(),
    token_id: newUlid(),
    authority: { scope: { kind: 'organisation', id: newUlid() }, permissions: ['manage-projects'] },
    generation: 1,
    ...over,
  };
}

/** A console session of a user, begun at BUILT_AT and not seen since, that runs out twelve hours later. */
export function buildConsoleSession(over: Partial<ConsoleSession> = {}): ConsoleSession {
  return {
    user_id: newUlid(),
    epoch: 0,
    created_at: BUILT_AT,
    last_seen_at: BUILT_AT,
    confirmed_at: BUILT_AT,
    csrf: 'c'.repeat(43),
    expires_at: '2026-01-01T12:00:00.000Z',
    ...over,
  };
}

/** A user's passkey as its registration stored it, never used since. */
export function buildPasskey(over: Partial<PasskeyRecord> = {}): PasskeyRecord {
  return {
    id: newUlid(),
    user_id: newUlid(),
    credential_id: Buffer.from(newUlid()).toString('base64url'),
    public_key: 'pQECAyYgASFYIA',
    counter: 0,
    transports: ['internal'],
    name: 'Laptop',
    created_at: BUILT_AT,
    backed_up: true,
    ...over,
  };
}

/** A connection of an organisation to a public GitHub repository (no token). */
export function buildRepositoryConnection(over: Partial<RepositoryConnection> = {}): RepositoryConnection {
  return {
    id: newUlid(),
    organisation_id: newUlid(),
    provider: 'github',
    url: 'https://github.com/acme/policies',
    name: 'acme/policies',
    created_at: BUILT_AT,
    api_url: 'https://api.github.com',
    ...over,
  };
}

export function buildSystem(over: Partial<StoredSystem> = {}): StoredSystem {
  const id = over.id ?? newUlid();
  return {
    id,
    organisation_id: newUlid(),
    name: `System ${id}`,
    short_code: `S${id.slice(-8)}`,
    description: null,
    created_at: BUILT_AT,
    updated_at: BUILT_AT,
    version: 1,
    ...over,
  };
}

/** An active PROTECTED project whose population has completed. */
export function buildProject(over: Partial<StoredProject> = {}): StoredProject {
  return {
    id: newUlid(),
    organisation_id: newUlid(),
    system_id: newUlid(),
    name: 'Factory project',
    description: null,
    ism_release_id: newUlid(),
    ism_release_version: 'factory',
    classification: 'P',
    essential_eight_target: 'none',
    lifecycle_state: 'active',
    archived: false,
    population_run_id: null,
    population_status: 'completed',
    created_at: BUILT_AT,
    created_by: 'factory',
    updated_at: BUILT_AT,
    version: 1,
    ...over,
  };
}

/** An ISM control of every classification, outside the Essential Eight. */
export function buildCatalogueEntry(over: Partial<CatalogueEntry> = {}): CatalogueEntry {
  const position = over.position ?? 0;
  return {
    id: `ism-${String(position + 1).padStart(4, '0')}`,
    kind: 'control',
    label: `ISM-${String(position + 1).padStart(4, '0')}`,
    title: 'Control',
    statement: 'Do the thing.',
    position,
    path: ['Guidelines for networking', 'Network design and configuration', 'Topic'],
    classifications: ['NC', 'OS', 'P', 'S', 'TS'],
    essential_eight: [],
    revision: 1,
    updated: null,
    ...over,
  };
}

/** A catalogue release of the given entries (one control by default). */
export function buildCatalogueRelease(over: Partial<ParsedRelease> = {}): ParsedRelease {
  return { version: `factory-${newUlid().toLowerCase()}`, title: 'Factory catalogue', published: '2026-01-01', entries: [buildCatalogueEntry()], ...over };
}

/** An applicable control of a project, in editing, with nothing implemented or assessed yet. */
export function buildControl(over: Partial<StoredControl> = {}): StoredControl {
  const {
    id: catalogue_id,
    revision: _revision,
    updated: _updated,
    statement: _statement,
    classifications: _classifications,
    ...entry
  } = buildCatalogueEntry({ position: over.position ?? 0 });
  return {
    ...entry,
    id: newUlid(),
    project_id: newUlid(),
    catalogue_id,
    applicability: 'y',
    applicability_origin: 'default_inclusion',
    applicability_comment: null,
    recommendation: null,
    recommendation_at: null,
    implementation_status: null,
    implementation_description: null,
    implementation_summary: null,
    workflow_state: 'editing',
    created_at: BUILT_AT,
    updated_at: BUILT_AT,
    version: 1,
    ...over,
  };
}

/** A text reference of a control, ready, without a file. */
export function buildEvidence(over: Partial<StoredEvidence> = {}): StoredEvidence {
  return {
    ...metadataOf({ title: 'Evidence', description: 'What was seen.' }),
    id: newUlid(),
    project_id: newUlid(),
    control_id: newUlid(),
    kind: 'text_reference',
    status: 'ready',
    version: 1,
    source: null,
    created_at: BUILT_AT,
    created_by: 'factory',
    updated_at: BUILT_AT,
    updated_by: 'factory',
    ...over,
  };
}

/** An uploaded PDF of a control as the scan pipeline leaves it: ready, its file checked and released. */
export function buildUploadEvidence(over: Partial<StoredEvidence> = {}): StoredEvidence {
  const uploadId = over.upload_id ?? newUlid();
  return buildEvidence({
    ...metadataOf({ title: 'Access review minutes' }),
    kind: 'upload',
    status: 'pending',
    upload_id: uploadId,
    file_status: 'ready',
    error_code: null,
    file_name: 'access-review-2026-q3.pdf',
    size: 2048,
    sha256: 'b'.repeat(64),
    detected_type: 'application/pdf',
    s3_key: `files/${uploadId}`,
    ...over,
  });
}

/** A row of a system's asset register. */
export function buildRegisterRow(over: Partial<StoredRegisterRow> = {}): StoredRegisterRow {
  const id = over.id ?? newUlid();
  return {
    id,
    definition_id: REGISTER_DEFINITION_IDS.assetRegister,
    owner: 'system',
    organisation_id: newUlid(),
    system_id: newUlid(),
    data: { asset_tag: `A-${id}`, name: 'Asset' },
    created_at: BUILT_AT,
    updated_at: BUILT_AT,
    version: 1,
    ...over,
  };
}

/** A review of a project's risk register, without notes. */
export function buildRegisterReview(over: Partial<StoredRegisterReview> = {}): StoredRegisterReview {
  return {
    id: newUlid(),
    project_id: newUlid(),
    definition_id: REGISTER_DEFINITION_IDS.riskRegister,
    notes: null,
    reviewed_by: newUlid(),
    reviewed_at: BUILT_AT,
    ...over,
  };
}

/** An open, unassigned manual task unrelated to a control. */
export function buildTask(over: Partial<StoredTask> = {}): StoredTask {
  return { ...openTask({ project_id: newUlid(), kind: 'manual', title: 'Confirm the system owner' }, new Date(BUILT_AT)), ...over };
}

/** A comment on a task. */
export function buildTaskComment(over: Partial<StoredTaskComment> = {}): StoredTaskComment {
  return { id: newUlid(), task_id: newUlid(), project_id: newUlid(), author_user_id: newUlid(), comment: 'Looked at it.', created_at: BUILT_AT, ...over };
}

export function buildProvider(over: Partial<StoredProvider> = {}): StoredProvider {
  const id = over.id ?? newUlid();
  return {
    id,
    name: `Provider ${id}`,
    description: null,
    website: null,
    release_count: 0,
    created_at: BUILT_AT,
    updated_at: BUILT_AT,
    version: 1,
    created_by: 'factory',
    ...over,
  };
}

/** A draft release as the create operation stores it (`publishedRelease` publishes one). */
export function buildRelease(over: Partial<StoredRelease> = {}): StoredRelease {
  const draft = newRelease(
    { name: 'Factory release', version: '1.0', ism_version_id: over.ism_version_id ?? newUlid(), assessed_on: '2026-01-15' },
    { id: over.id ?? newUlid(), providerId: over.provider_id ?? newUlid(), ismVersion: 'factory', by: 'factory', now: new Date(BUILT_AT) },
  );
  return { ...draft, ...over };
}

/** What an import of a one-row matrix reads into an exact assertion. */
export const assertionContent = (): AssertionContent => ({
  artefact_id: 'A',
  row: 2,
  responsibility: 'provider',
  implementation_status: 'implemented',
  implementation_statement: 'Done by the platform.',
  consumer_guidance: null,
  assessor_finding: 'Effective.',
  control_text: null,
  exact: true,
  review_reason: null,
  review_detail: null,
  imported_at: '2026-01-01T00:00:00.000Z',
});

/** A confirmed, exact assertion of a release that the provider implements the control. */
export function buildAssertion(over: Partial<StoredAssertion> = {}): StoredAssertion {
  const releaseId = over.release_id ?? newUlid();
  const controlId = over.control_id ?? 'ism-0001';
  return {
    id: assertionId(releaseId, controlId),
    provider_id: newUlid(),
    release_id: releaseId,
    control_id: controlId,
    status: 'confirmed',
    version: 1,
    reviewed_by: null,
    reviewed_at: null,
    ...assertionContent(),
    ...over,
  };
}

/** A row an import read: the provider implements the control, with no release named. */
export function buildImportedRow(over: Partial<ImportedRow> = {}): ImportedRow {
  const { artefact_id: _artefact, exact: _exact, review_reason: _reason, review_detail: _detail, imported_at: _at, ...content } = assertionContent();
  return { ...content, control_id: 'ism-0001', ism_version: null, ...over };
}

/** What a project's selection reads of a confirmed assertion: the provider implements the control. */
export function buildSelectedAssertion(over: Partial<SelectedAssertion> = {}): SelectedAssertion {
  const { id, provider_id, release_id, control_id, responsibility, implementation_status } = buildAssertion();
  return { id, provider_id, release_id, control_id, responsibility, implementation_status, restricted: false, ...over };
}

/** A provider's file artefact whose upload is still in quarantine. */
export function buildArtefact(over: Partial<StoredArtefact> = {}): StoredArtefact {
  const uploadId = over.upload_id ?? newUlid();
  return {
    id: newUlid(),
    provider_id: newUlid(),
    release_id: null,
    kind: 'file',
    name: 'ccm.xlsx',
    url: null,
    restricted: false,
    ism_version_id: null,
    upload_id: uploadId,
    file_status: 'quarantine',
    error_code: null,
    file_name: 'ccm.xlsx',
    size: 10,
    sha256: 'ab',
    detected_type: null,
    s3_key: `quarantine/${uploadId}`,
    created_at: BUILT_AT,
    updated_at: BUILT_AT,
    created_by: 'factory',
    version: 1,
    ...over,
  };
}

/** A queued draft generation of a document. */
export function buildGeneration(over: Partial<StoredGeneration> = {}): StoredGeneration {
  return {
    id: newUlid(),
    status: 'queued',
    options: { output: 'draft', draft_watermark: true, show_implementation_notes: false, show_assessor_notes: false },
    requested_by: newUlid(),
    requested_by_name: 'Alex',
    token_id: newUlid(),
    requested_at: BUILT_AT,
    approved_by: null,
    approved_by_name: null,
    approved_at: null,
    started_at: null,
    finished_at: null,
    error_code: null,
    ...over,
  };
}

/**
 * An evidence file of a project as the scan leaves it released (`ready`), uploaded by a project
 * credential; a quarantined one is `{ status: 'quarantine', checks: { validation: 'pending', malware: 'pending' } ... }`.
 */
export function buildUpload(over: Partial<UploadRecord> = {}): UploadRecord {
  const id = over.id ?? newUlid();
  const projectId = over.project_id ?? newUlid();
  return {
    id,
    profile: 'evidence',
    status: 'ready',
    error_code: null,
    s3_key: `files/${id}`,
    sha256: createHash('sha256').update(id).digest('hex'),
    size: 1024,
    file_name: 'evidence.pdf',
    declared_type: 'application/pdf',
    detected_type: 'application/pdf',
    width: null,
    height: null,
    organisation_id: newUlid(),
    project_id: projectId,
    provider_id: null,
    owner: keys.evidence(projectId, newUlid(), newUlid()),
    uploaded_by: newUlid(),
    token_id: newUlid(),
    authority: { scope: { kind: 'project', id: projectId }, permissions: ['edit-control-implementation', 'view-controls'] },
    checks: { validation: 'passed', malware: 'clean' },
    reused_from: null,
    created_at: BUILT_AT,
    scanned_at: BUILT_AT,
    ...over,
  };
}

/** A ready network diagram's owner item, as ownerShows writes it and the scan mirrors its release into it. */
export function buildFileOwner(over: Partial<FileOwner> = {}): FileOwner {
  const uploadId = over.upload_id ?? newUlid();
  return {
    upload_id: uploadId,
    file_status: 'ready',
    error_code: null,
    file_name: 'diagram.png',
    size: 2048,
    detected_type: 'image/png',
    width: 640,
    height: 480,
    s3_key: `files/${uploadId}`,
    uploaded_at: BUILT_AT,
    uploaded_by: newUlid(),
    version: 1,
    ...over,
  };
}

/** An upload record as the table holds it, with its keys and hash index attributes. */
export function storedUpload(upload: UploadRecord): Item {
  const write = uploadPut(upload);
  if (write.kind !== 'put') throw new Error('an upload is stored by a put');
  return write.item;
}

/* The create* variants: stored through the store's own writes, for integration tests. */

/** A user of the installation; its id. */
export async function createUser(options: { superUser?: boolean } = {}): Promise<string> {
  return (await createStoredUser({ email: `${newUlid().toLowerCase()}@test.invalid`, name: 'Test User', superUser: options.superUser ?? false }, new Date()))
    .id;
}

export async function createOrganisation(over: Partial<StoredOrganisation> = {}): Promise<StoredOrganisation> {
  const organisation = buildOrganisation(over);
  await commit(createOrganisationWrites(organisation, NO_LIMIT, never, never));
  return organisation;
}

/** A system of the organisation (a new one unless given). */
export async function createSystem(over: Partial<StoredSystem> = {}): Promise<StoredSystem> {
  const system = buildSystem({ ...over, organisation_id: over.organisation_id ?? (await createOrganisation()).id });
  await commit(createSystemWrites(system, NO_LIMIT, never, never));
  return system;
}

/** A project in a new system of the organisation, unless a system is given. */
export async function createProject(over: Partial<StoredProject> & Pick<StoredProject, 'organisation_id'>): Promise<StoredProject> {
  const project = buildProject({ ...over, system_id: over.system_id ?? (await createSystem({ organisation_id: over.organisation_id })).id });
  await commit(createProjectWrites(project));
  return project;
}

/** A control item of the project, as a population writes it. */
export async function createControl(over: Partial<StoredControl> & Pick<StoredControl, 'project_id'>): Promise<StoredControl> {
  const control = buildControl(over);
  await commit([{ kind: 'put', item: controlItem(control), condition: itemAbsent() }]);
  return control;
}

/** An evidence item of the control, written with its head's move as the evidence operations write one. */
export async function createEvidence(over: Partial<StoredEvidence> & Pick<StoredEvidence, 'project_id' | 'control_id'>): Promise<StoredEvidence> {
  const evidence = buildEvidence(over);
  await commit(evidenceCreateWrites(evidence));
  return evidence;
}

/** A catalogue release imported as the operator CLI imports one; its release id. */
export async function createCatalogueRelease(over: Partial<ParsedRelease> = {}): Promise<string> {
  return (await importRelease(buildCatalogueRelease(over), { sample: true }, new Date())).id;
}

/** A row of the scope's register, counted and claiming its logical key as a create does. */
export async function createRegisterRow(scope: RowScope, over: Partial<StoredRegisterRow> = {}): Promise<StoredRegisterRow> {
  const row = buildRegisterRow(over);
  await commit(createRowWrites(scope, { row, logicalKey: String(row.data.asset_tag ?? row.id) }, never));
  return row;
}

/** A task of the project, counted as the task operations count it. */
export async function createTask(over: Partial<StoredTask> & Pick<StoredTask, 'project_id'>): Promise<StoredTask> {
  const task = buildTask(over);
  await commit(createTaskWrites(task));
  return task;
}

export async function createProvider(over: Partial<StoredProvider> = {}): Promise<StoredProvider> {
  const provider = buildProvider(over);
  await commit(createProviderWrites(provider));
  return provider;
}

/** A release of the provider through the operations' writes: a draft, then published unless the status asks for a draft. */
export async function createRelease(over: Partial<StoredRelease> & Pick<StoredRelease, 'provider_id'>): Promise<StoredRelease> {
  const draft = buildRelease({ ...over, status: 'draft' });
  await commit(createReleaseWrites(draft, NO_LIMIT, never));
  if (over.status === 'draft') return draft;
  const published = publishedRelease(draft, 'factory', new Date());
  await commit(publishReleaseWrites(draft, published, never));
  return published;
}

/** An assertion of the release about an ISM control, written as the imports write it. */
export async function createAssertion(
  release: Pick<StoredRelease, 'provider_id' | 'id'>,
  over: Partial<StoredAssertion> & { status?: AssertionStatus } = {},
): Promise<StoredAssertion> {
  const assertion = buildAssertion({ ...over, provider_id: release.provider_id, release_id: release.id });
  await commit(assertionWrites(assertion, undefined));
  return assertion;
}
