/**
 * Key builders of the single table. Every access pattern is a GetItem, BatchGetItem or Query on
 * these keys (docs/storage.md lists them as a table of access patterns, which a test checks against these builders).
 */
export interface Key {
  PK: string;
  SK: string;
}

/** Index layout shared by the local table bootstrap and the CDK data stack. */
export const TABLE_KEYS = { partition: 'PK', sort: 'SK', ttl: 'ttl' } as const;
/** Jobs start from the table's stream (lib/jobs/dispatch.ts), which tells a new job from a rewrite of a running one by both images. */
export const TABLE_STREAM = 'NEW_AND_OLD_IMAGES' as const;
export const GSIS = [{ name: 'GSI1', partition: 'GSI1PK', sort: 'GSI1SK' }] as const;

export const keys = {
  user: (userId: string): Key => ({ PK: `USER#${userId}`, SK: 'PROFILE' }),
  userEmail: (email: string): Key => ({ PK: `USEREMAIL#${email.toLowerCase()}`, SK: 'USEREMAIL' }),
  installationAccess: (userId: string): Key => ({ PK: `USER#${userId}`, SK: 'ACCESS#INSTALLATION' }),
  organisationAccess: (userId: string, organisationId: string): Key => ({ PK: `USER#${userId}`, SK: `ACCESS#ORG#${organisationId}` }),
  projectAccess: (userId: string, projectId: string): Key => ({ PK: `USER#${userId}`, SK: `ACCESS#PROJECT#${projectId}` }),
  /** The organisations an actor created through the API: discovery only, not membership. */
  organisationVisibility: (userId: string, organisationId: string): Key => ({ PK: `USER#${userId}`, SK: `VISIBLE#ORG#${organisationId}` }),
  token: (tokenId: string): Key => ({ PK: `TOKEN#${tokenId}`, SK: 'TOKEN' }),
  /** A passkey of the user, by its WebAuthn credential id: the assertion's user handle and credential id find it in one GetItem. */
  passkey: (userId: string, credentialId: string): Key => ({ PK: `USER#${userId}`, SK: `PASSKEY#${credentialId}` }),
  /** The user's one open enrolment link (a newer link replaces it), holding only the link's hash. */
  enrolmentLink: (userId: string): Key => ({ PK: `USER#${userId}`, SK: 'ENROLMENT' }),
  /** A console session, by the SHA-256 of its cookie value: the cookie is never stored. */
  consoleSession: (cookieHash: string): Key => ({ PK: `CONSOLESESSION#${cookieHash}`, SK: 'SESSION' }),
  /** A WebAuthn ceremony's challenge, by the SHA-256 of its cookie value; taken (deleted) once. */
  consoleCeremony: (cookieHash: string): Key => ({ PK: `CEREMONY#${cookieHash}`, SK: 'CEREMONY' }),
  /** An active user with live access in the organisation (at its scope or a project's): document owners, kept by the identity store. */
  organisationMember: (organisationId: string, userId: string): Key => ({ PK: `ORG#${organisationId}`, SK: `MEMBER#${userId}` }),
  organisation: (organisationId: string): Key => ({ PK: `ORG#${organisationId}`, SK: 'ORG' }),
  project: (projectId: string): Key => ({ PK: `PROJECT#${projectId}`, SK: 'PROJECT' }),
  /** A system's projects (Query the system partition): the key of each, for listing and recalculation. */
  systemProject: (systemId: string, projectId: string): Key => ({ PK: `SYSTEM#${systemId}`, SK: `PROJECT#${projectId}` }),
  projectScope: (projectId: string): Key => ({ PK: `PROJECT#${projectId}`, SK: 'SCOPE' }),
  projectEngagement: (projectId: string): Key => ({ PK: `PROJECT#${projectId}`, SK: 'ENGAGEMENT' }),
  /** The project's network diagram: which upload it is, and that upload's status mirrored. */
  projectDiagram: (projectId: string): Key => ({ PK: `PROJECT#${projectId}`, SK: 'DIAGRAM' }),
  /** The current population run, its progress, and the runs before it. */
  projectPopulation: (projectId: string): Key => ({ PK: `PROJECT#${projectId}`, SK: 'POPULATION' }),
  /** Control counts (applicability, attention, workflow state): set by population, moved by each edit and transition, recounted by each recalculation pass. */
  projectSummary: (projectId: string): Key => ({ PK: `PROJECT#${projectId}`, SK: 'SUMMARY' }),
  /** The project's control positions in catalogue order, for key-range pages of the control list. */
  projectControlIndex: (projectId: string): Key => ({ PK: `PROJECT#${projectId}`, SK: 'INDEX#CONTROLS' }),
  /** Which controls are in each workflow state, implementation status and exclusion, one shard of positions: moved by every control write, for filtered lists. */
  projectControlFilters: (projectId: string, shard: number): Key => ({ PK: `PROJECT#${projectId}`, SK: `INDEX#FILTERS#${shard}` }),
  /** A durable request to recalculate this project's applicability (a scope change). */
  projectRecalculation: (projectId: string): Key => ({ PK: `PROJECT#${projectId}`, SK: 'APPLICABILITY#PENDING' }),
  /** Project collection counters (register rows and reviews per definition), kept in the writing transaction. */
  projectCounters: (projectId: string): Key => ({ PK: `PROJECT#${projectId}`, SK: 'COUNTERS' }),
  /** Project-owned register rows and their logical-key claims, in the project partition like system rows in theirs. */
  projectRegisterRow: (projectId: string, definitionId: string, rowId: string): Key => ({ PK: `PROJECT#${projectId}`, SK: `ROW#${definitionId}#${rowId}` }),
  projectRegisterRowKey: (projectId: string, definitionId: string, keyDigest: string): Key => ({
    PK: `PROJECT#${projectId}`,
    SK: `ROWKEY#${definitionId}#${keyDigest}`,
  }),
  /** A register review, ordered newest reviewed time first (inverted time), then by ID. */
  registerReview: (projectId: string, definitionId: string, invertedTime: string, reviewId: string): Key => ({
    PK: `PROJECT#${projectId}`,
    SK: `REVIEW#${definitionId}#${invertedTime}#${reviewId}`,
  }),
  /** A project's controls, in catalogue order (control ULIDs sort by catalogue position). */
  control: (projectId: string, controlId: string): Key => ({ PK: `PROJECT#${projectId}`, SK: `CONTROL#${controlId}` }),
  /** A generated-document output row of the project (its ULID is {document} in URLs). */
  document: (projectId: string, documentId: string): Key => ({ PK: `PROJECT#${projectId}`, SK: `DOCUMENT#${documentId}` }),
  /** The project's generation lease: one generation at a time, held by a conditional write until released or expired. */
  generationLease: (projectId: string): Key => ({ PK: `PROJECT#${projectId}`, SK: 'GENERATION#LEASE' }),
  /** A control's evidence head: the revision every change of its evidence moves, and the live item count. */
  evidenceHead: (projectId: string, controlId: string): Key => ({ PK: `PROJECT#${projectId}`, SK: `EVIDENCE#${controlId}` }),
  /** One evidence item of a control: Query the head's SK as a prefix for the head and every item. */
  evidence: (projectId: string, controlId: string, evidenceId: string): Key => ({ PK: `PROJECT#${projectId}`, SK: `EVIDENCE#${controlId}#${evidenceId}` }),
  /** A link's claim on its source within a control (by digest of the source's identity): one link per control and source. */
  evidenceLinkClaim: (projectId: string, controlId: string, sourceDigest: string): Key => ({
    PK: `PROJECT#${projectId}`,
    SK: `EVIDENCELINK#${controlId}#${sourceDigest}`,
  }),
  /** An immutable copy of an evidence item as a capture pinned it, readable after the live item is replaced or deleted. */
  evidenceVersion: (projectId: string, evidenceId: string, version: number): Key => ({
    PK: `PROJECT#${projectId}`,
    SK: `EVIDENCEVERSION#${evidenceId}#${String(version).padStart(6, '0')}`,
  }),
  /** A repository connection of an organisation (configured by the operator CLI), which repository evidence links name. */
  repositoryConnection: (organisationId: string, connectionId: string): Key => ({ PK: `ORG#${organisationId}`, SK: `REPOSITORY#${connectionId}` }),
  /** A project's working copy of a library definition (absent until first written). */
  libraryItem: (projectId: string, definitionId: string): Key => ({ PK: `PROJECT#${projectId}`, SK: `LIBRARY#${definitionId}` }),
  /** Its Markdown, apart, so that lists, metadata edits and the review-due index never carry the content. */
  libraryContent: (projectId: string, definitionId: string): Key => ({ PK: `PROJECT#${projectId}`, SK: `LIBCONTENT#${definitionId}` }),
  /** A shared external provider: its partition holds its releases and their assertions. */
  externalProvider: (providerId: string): Key => ({ PK: `PROVIDER#${providerId}`, SK: 'PROVIDER' }),
  /** Shared external providers and their assurance releases (provider selections in project scope point at these). */
  assuranceRelease: (providerId: string, releaseId: string): Key => ({ PK: `PROVIDER#${providerId}`, SK: `RELEASE#${releaseId}` }),
  /** An artefact of a provider (a link or a file, of one of its releases or of the provider alone). */
  providerArtefact: (providerId: string, artefactId: string): Key => ({ PK: `PROVIDER#${providerId}`, SK: `ARTEFACT#${artefactId}` }),
  /** A release's assertion about one ISM control, by its ULID, which names the release and the control (assertionId): one per release and control. */
  assertion: (providerId: string, assertionId: string): Key => ({ PK: `PROVIDER#${providerId}`, SK: `ASSERTION#${assertionId}` }),
  /** Present while that assertion is confirmed: the releases asserting a control are one Query of the control's partition. */
  controlAssertion: (controlId: string, providerId: string, releaseId: string): Key => ({
    PK: `ASSERTED#${controlId}`,
    SK: `RELEASE#${providerId}#${releaseId}`,
  }),
  /** What a deleted provider or release left in its partition, to be purged: `release` names a release, or nothing for the whole provider. */
  providerPurge: (providerId: string, releaseId?: string): Key => ({
    PK: `PROVIDER#${providerId}`,
    SK: releaseId ? `PURGE#RELEASE#${releaseId}` : 'PURGE#PROVIDER',
  }),
  /** A deleted file artefact's upload: its released object stays for reuse while the provider lives, and goes with the provider's purge. */
  deletedArtefactFile: (providerId: string, uploadId: string): Key => ({ PK: `PROVIDER#${providerId}`, SK: `DELETEDFILE#${uploadId}` }),
  /** An artefact's current import run (use-as-CCM or import): status, progress, row errors, lease. */
  artefactImport: (providerId: string, artefactId: string): Key => ({ PK: `PROVIDER#${providerId}`, SK: `IMPORT#${artefactId}` }),
  organisationContext: (organisationId: string): Key => ({ PK: `ORG#${organisationId}`, SK: 'CONTEXT' }),
  /** Per-organisation counters: collection totals and licence usage, kept in the writing transaction. */
  organisationCounters: (organisationId: string): Key => ({ PK: `ORG#${organisationId}`, SK: 'COUNTERS' }),
  system: (organisationId: string, systemId: string): Key => ({ PK: `ORG#${organisationId}`, SK: `SYSTEM#${systemId}` }),
  systemCode: (organisationId: string, shortCode: string): Key => ({ PK: `ORG#${organisationId}`, SK: `SYSCODE#${shortCode}` }),
  systemContext: (systemId: string): Key => ({ PK: `SYSTEM#${systemId}`, SK: 'CONTEXT' }),
  systemCounters: (systemId: string): Key => ({ PK: `SYSTEM#${systemId}`, SK: 'COUNTERS' }),
  contact: (systemId: string, contactId: string): Key => ({ PK: `SYSTEM#${systemId}`, SK: `CONTACT#${contactId}` }),
  deletedContact: (systemId: string, contactId: string): Key => ({ PK: `SYSTEM#${systemId}`, SK: `DELETEDCONTACT#${contactId}` }),
  /** Register rows live in their owner's partition: system-owned under the system, shared ones under the organisation. */
  systemRegisterRow: (systemId: string, definitionId: string, rowId: string): Key => ({ PK: `SYSTEM#${systemId}`, SK: `ROW#${definitionId}#${rowId}` }),
  organisationRegisterRow: (organisationId: string, definitionId: string, rowId: string): Key => ({
    PK: `ORG#${organisationId}`,
    SK: `ROW#${definitionId}#${rowId}`,
  }),
  /** Logical-key claims of register rows (uniqueness within the owner scope), by digest of the normalised key. */
  systemRegisterRowKey: (systemId: string, definitionId: string, keyDigest: string): Key => ({
    PK: `SYSTEM#${systemId}`,
    SK: `ROWKEY#${definitionId}#${keyDigest}`,
  }),
  organisationRegisterRowKey: (organisationId: string, definitionId: string, keyDigest: string): Key => ({
    PK: `ORG#${organisationId}`,
    SK: `ROWKEY#${definitionId}#${keyDigest}`,
  }),
  /** A durable request to recalculate applicability of every project of an organisation (its context changed). */
  organisationRecalculation: (organisationId: string): Key => ({ PK: `ORG#${organisationId}`, SK: 'APPLICABILITY#PENDING' }),
  /** A durable request to recalculate applicability of a system's projects (picked up by the recalculation job). */
  applicabilityRecalculation: (systemId: string): Key => ({ PK: `SYSTEM#${systemId}`, SK: 'APPLICABILITY#PENDING' }),
  /** The imported ISM releases: one partition, a release per sort key, by release ULID. */
  catalogueRelease: (releaseId: string): Key => ({ PK: 'CATALOGUE', SK: `RELEASE#${releaseId}` }),
  /** Which release ULID a catalogue version was imported as, so that a re-import finds it. */
  catalogueVersion: (version: string): Key => ({ PK: 'CATALOGUE', SK: `VERSION#${version}` }),
  /** A release's entries in catalogue order (Query the partition). */
  catalogueEntry: (releaseId: string, position: number): Key => ({ PK: `RELEASE#${releaseId}`, SK: `ENTRY#${String(position).padStart(5, '0')}` }),
  upload: (uploadId: string): Key => ({ PK: `UPLOAD#${uploadId}`, SK: 'UPLOAD' }),
  /** Present while the upload waits for its scan, listed in GSI1 (`SCAN_PENDING`) by when it was last queued: the sweep queues lost scans again. */
  uploadScan: (uploadId: string): Key => ({ PK: `UPLOAD#${uploadId}`, SK: 'SCAN' }),
  /** A malware verdict that arrived before its upload record (GuardDuty scans objects as they land). */
  uploadVerdict: (uploadId: string): Key => ({ PK: `UPLOAD#${uploadId}`, SK: 'VERDICT' }),
  uploadSession: (sessionId: string): Key => ({ PK: `UPLOADSESSION#${sessionId}`, SK: 'UPLOADSESSION' }),
  /** The organisation's current logo: which upload it is, and that upload's status mirrored. */
  organisationLogo: (organisationId: string): Key => ({ PK: `ORG#${organisationId}`, SK: 'LOGO' }),
  organisationSlug: (slug: string): Key => ({ PK: `ORGSLUG#${slug}`, SK: 'ORGSLUG' }),
  /** Installation-wide markers, such as the local demo installation. */
  installationMarker: (name: string): Key => ({ PK: 'INSTALLATION', SK: name }),
  counter: (name: string): Key => ({ PK: `COUNTER#${name}`, SK: 'COUNTER' }),
  receipt: (userId: string, keyDigest: string): Key => ({ PK: `RECEIPT#${userId}#${keyDigest}`, SK: 'RECEIPT' }),
  rateWindow: (budget: string, subject: string, window: number): Key => ({ PK: `RATE#${budget}#${subject}#${window}`, SK: 'RATE' }),
  audit: (scope: string, day: string, sortKey: string): Key => ({ PK: `AUDIT#${scope}#${day}`, SK: sortKey }),
} as const;

/** Prefixes for Query access patterns. */
export const prefixes = {
  system: 'SYSTEM#',
  systemProject: 'PROJECT#',
  control: 'CONTROL#',
  document: 'DOCUMENT#',
  catalogueRelease: 'RELEASE#',
  catalogueEntry: 'ENTRY#',
  contact: 'CONTACT#',
  /** Followed by the definition ID and `#`: the rows of one register, oldest first. */
  registerRow: 'ROW#',
  /** Followed by the definition ID, `#` and the row ID: a keys-only order item per row, for deep pages. */
  registerRowOrder: 'ROWORDER#',
  /** Followed by the definition ID and `#`: the reviews of one register, newest first. */
  registerReview: 'REVIEW#',
  organisationAccess: 'ACCESS#ORG#',
  organisationVisibility: 'VISIBLE#ORG#',
  organisationMember: 'MEMBER#',
  libraryItem: 'LIBRARY#',
  /** An organisation's repository connections. */
  repositoryConnection: 'REPOSITORY#',
  /** A provider's assurance releases, oldest first. */
  assuranceRelease: 'RELEASE#',
  /** A provider's artefacts, oldest first. */
  providerArtefact: 'ARTEFACT#',
  /** Followed by the release's part of assertion ids (releaseAssertionIds): a release's assertions, by control. */
  assertion: 'ASSERTION#',
  /** An artefact's import run. */
  artefactImport: 'IMPORT#',
  deletedArtefactFile: 'DELETEDFILE#',
  /** Every access item of a user (installation, organisation and project scope). */
  access: 'ACCESS#',
  userTokens: 'TOKEN#',
  passkey: 'PASSKEY#',
} as const;

/** GSI1 partitions. */
export const gsi1 = {
  pendingRecalculations: 'APPLICABILITY_PENDING',
  /** Population runs still running, oldest first: the sweep ends abandoned ones. */
  runningPopulations: 'POPULATION_RUNNING',
  /** Purges of deleted providers and releases not finished yet, by request time: the sweep queues lost ones again. */
  pendingPurges: 'PURGE_PENDING',
  /** Uploads waiting for their scan (sparse: one watch item each, gone once the upload settles), by when their scan was last queued. */
  pendingScans: 'SCAN_PENDING',
  /** Import runs still running (sparse: an ended run drops the key), by start time: the sweep ends abandoned ones. */
  runningImports: 'IMPORT_RUNNING',
  /** Every shared external provider, oldest first. */
  externalProviders: 'PROVIDERS',
  /** Published assurance releases (sparse: drafts carry no key), by `<ISM release>#<provider>#<release>`: what projects may select. */
  publishedReleases: 'PUBLISHED_RELEASES',
  userTokens: (userId: string) => `USERTOKENS#${userId}`,
  /** Every user, by email: the console's user administration. */
  users: 'USERS',
  /** A project's controls that need attention of one kind (sparse: only those controls carry the key), by position. */
  controlAttention: (projectId: string, attention: 'conflict' | 'suggested_exclusion') => `ATTENTION#${projectId}#${attention}`,
  /** A project's uploaded evidence files (sparse: uploads only), by control in catalogue order, then oldest first: link options. */
  evidenceFiles: (projectId: string) => `EVIDENCEFILES#${projectId}`,
  /** Library items and project register rows with a review_due date (sparse), by that date: what the review sweep reads. */
  reviewDue: 'REVIEW_DUE',
} as const;

/** Strips the storage attributes before an item becomes a domain record. */
export function withoutKeys<T extends Record<string, unknown>>(item: T): Omit<T, 'PK' | 'SK' | 'GSI1PK' | 'GSI1SK' | 'ttl' | 'entity'> {
  const { PK: _pk, SK: _sk, GSI1PK: _g1, GSI1SK: _g2, ttl: _ttl, entity: _e, ...rest } = item;
  return rest;
}
