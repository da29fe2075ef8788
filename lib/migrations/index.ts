import * as z from 'zod';
import { once } from '../domain/validation.js';
import { putAll } from '../store/batch.js';
import { absentOrZero, and, attributeEquals, itemAbsent, itemPresent } from '../store/conditions.js';
import { moveLegacyAssertion } from '../store/assertions.js';
import { parseFound, parseStored } from '../store/entity.js';
import { usersIndex } from '../store/identity.js';
import { recountProject, stripCopiedText, SUMMARY_PREFIX } from '../store/controls.js';
import { runningIndexKeys } from '../store/imports.js';
import { keys, type Key } from '../store/keys.js';
import { recountMembers, syncMemberships } from '../store/members.js';
import { scanEach } from '../store/migration-scan.js';
import { getMany, getOne, keyString, type Item } from '../store/read.js';
import { type PurgeSubject, purgeMarkerItem } from '../store/provider-purge.js';
import { backfillRowOrder, type RowScope } from '../store/registers.js';
import { putItem, updateIf } from '../store/update.js';
import { commit, UnmappedConditionError } from '../store/transact.js';
import { scanWatchPut } from '../files/uploads.js';

/**
 * Data migrations: derived items that installations created before a release lack. Each step is
 * idempotent (running it twice, or concurrently with a second runner, gives the same data) and is
 * recorded as applied in an installation marker, so that it runs once per installation. Steps
 * enumerate with a paginated Scan: they run once, off the request path, and a Scan reads each item
 * once, where walking organisations, systems and projects would read the same items and more in
 * three levels of Queries and miss anything its parents no longer point at.
 */
export interface MigrationStep {
  name: string;
  /** What it did, in a sentence for the operator. */
  run: (now: Date) => Promise<string>;
}

export interface MigrationOutcome {
  name: string;
  status: 'applied' | 'already applied';
  at: string;
  result?: string;
}

const markerKey = (step: string) => keys.installationMarker(`MIGRATION#${step}`);

const idAfter = (prefix: string, value: string) => value.slice(prefix.length);

/**
 * What each step reads of the items it migrates, as those items were stored before it: each step
 * parses only the attributes it needs, so that what a later release added or renamed does not
 * matter to it, and an item without them stops the step, naming its key, rather than being
 * migrated with a guessed value.
 */
const LEGACY = once(() => ({
  project: z.object({ lifecycle_state: z.string() }),
  identified: z.object({ id: z.string() }),
  member: z.object({ user_id: z.string(), organisation_id: z.string() }),
  runningImport: z.object({ run_id: z.string(), started_at: z.string(), provider_id: z.string(), artefact_id: z.string() }),
  importRun: z.object({ run_id: z.string() }),
  providerData: z.object({ provider_id: z.string(), release_id: z.string() }),
  user: z.object({ email: z.string() }),
  upload: z.object({ id: z.string(), created_at: z.string() }),
  marker: z.object({ applied_at: z.string() }),
}));

/**
 * Summaries written before they counted controls by implementation status and assessed outcome, or
 * moved since by control edits that took a status from a counter they lacked (which then went
 * negative): either way those counters do not add up to the project's controls.
 */
export async function recountProjectsWithoutStatusCounters(now: Date): Promise<string> {
  const total = (summary: Item, prefix: string) => Object.entries(summary).reduce((sum, [k, v]) => (k.startsWith(prefix) ? sum + Number(v) : sum), 0);
  const stale: string[] = [];
  await scanEach(
    {
      FilterExpression: 'SK = :sk AND begins_with(PK, :pk)',
      ExpressionAttributeValues: { ':sk': keys.projectSummary('').SK, ':pk': keys.project('').PK },
    },
    (summary) => {
      const controls = Number(summary.controls ?? 0);
      const prefixes = [SUMMARY_PREFIX.implementationStatus, SUMMARY_PREFIX.assessmentOutcome];
      if (prefixes.some((p) => total(summary, p) !== controls)) stale.push(idAfter(keys.project('').PK, summary.PK));
    },
  );
  let recounted = 0;
  for (const projectId of stale) {
    // A project still populating gets a complete summary when its population ends.
    if (parseFound(LEGACY().project, await getOne(keys.project(projectId)))?.lifecycle_state !== 'active') continue;
    await recountProject(projectId, now);
    recounted++;
  }
  return `recounted ${recounted} project summaries without status and outcome counters`;
}

/** Member items and exact member counters from every user's access items: users granted access before members were kept have none. */
export async function rebuildOrganisationMembers(now: Date): Promise<string> {
  const users = new Map<string, string[]>();
  const organisations = new Set<string>();
  await scanEach(
    {
      FilterExpression: '#e IN (:user, :member, :organisation)',
      ProjectionExpression: 'PK, SK, #e, #id, #u, #o',
      ExpressionAttributeNames: { '#e': 'entity', '#id': 'id', '#u': 'user_id', '#o': 'organisation_id' },
      ExpressionAttributeValues: { ':user': 'user', ':member': 'member', ':organisation': 'organisation' },
    },
    (item) => {
      if (item.entity !== 'member') {
        const { id } = parseStored(LEGACY().identified, item);
        if (item.entity === 'organisation') organisations.add(id);
        else users.set(id, users.get(id) ?? []);
        return;
      }
      const m = parseStored(LEGACY().member, item);
      organisations.add(m.organisation_id);
      users.set(m.user_id, [...(users.get(m.user_id) ?? []), m.organisation_id]);
    },
  );
  // A member item of a user without access there (or of a user record gone) is removed by the sync.
  for (const [userId, memberOf] of users) await syncMemberships(userId, now, memberOf);
  let corrected = 0;
  for (const organisationId of organisations) if (await recountMembers(organisationId)) corrected++;
  return `synchronised the memberships of ${users.size} users; corrected the member count of ${corrected} of ${organisations.size} organisations`;
}

/**
 * A step that hands every register with rows (its owner scope and definition, from the row
 * counters of project, system and organisation counters items) to `backfill`.
 */
export function registerStep(name: string, what: string, backfill: (scope: RowScope, definitionId: string) => Promise<unknown>): MigrationStep {
  const ROW_COUNT = 'register_rows_';
  const scopeOf = (pk: string): RowScope | undefined => {
    if (pk.startsWith('PROJECT#')) return { owner: 'project', projectId: idAfter('PROJECT#', pk) };
    if (pk.startsWith('SYSTEM#')) return { owner: 'system', systemId: idAfter('SYSTEM#', pk) };
    return pk.startsWith('ORG#') ? { owner: 'organisation', organisationId: idAfter('ORG#', pk) } : undefined;
  };
  return {
    name,
    run: async () => {
      const registers: [RowScope, string][] = [];
      await scanEach({ FilterExpression: 'SK = :sk', ExpressionAttributeValues: { ':sk': 'COUNTERS' } }, (counters) => {
        const scope = scopeOf(counters.PK);
        if (!scope) return;
        for (const [k, v] of Object.entries(counters)) if (k.startsWith(ROW_COUNT) && Number(v) > 0) registers.push([scope, idAfter(ROW_COUNT, k)]);
      });
      for (const [scope, definitionId] of registers) await backfill(scope, definitionId);
      return `${what} for ${registers.length} registers`;
    },
  };
}

/** Import runs started before running runs were indexed: without the key the sweep would never end them. */
export async function indexRunningImports(): Promise<string> {
  let indexed = 0;
  await scanEach(
    {
      FilterExpression: '#e = :run AND #s = :running AND attribute_not_exists(#g)',
      ExpressionAttributeNames: { '#e': 'entity', '#s': 'status', '#g': 'GSI1PK' },
      ExpressionAttributeValues: { ':run': 'import-run', ':running': 'running' },
    },
    async (item) => {
      const run = parseStored(LEGACY().runningImport, item);
      // Only while it is still the same running run: one that has ended meanwhile stays out of the index.
      if (await updateIf({ PK: item.PK, SK: item.SK }, runningIndexKeys(run), and(attributeEquals('run_id', run.run_id), attributeEquals('status', 'running'))))
        indexed++;
    },
  );
  return `indexed ${indexed} running import runs`;
}

/**
 * Import runs written before runs kept a revision: every run write is conditional on the revision
 * its writer read, so a run without one could neither progress, end nor be swept.
 */
export async function reviseImportRuns(): Promise<string> {
  let revised = 0;
  await scanEach(
    {
      FilterExpression: '#e = :run AND attribute_not_exists(#rev)',
      ExpressionAttributeNames: { '#e': 'entity', '#rev': 'revision' },
      ExpressionAttributeValues: { ':run': 'import-run' },
    },
    async (item) => {
      const run = parseStored(LEGACY().importRun, item);
      // A run that gained a revision meanwhile (a new run replaced it) keeps it.
      if (await updateIf({ PK: item.PK, SK: item.SK }, { revision: 1 }, and(attributeEquals('run_id', run.run_id), absentOrZero('revision')))) revised++;
    },
  );
  return `gave ${revised} import runs a revision`;
}

/**
 * Assertions and import runs of releases and providers deleted before deletions queued their
 * purge: a purge marker for each (of the provider when it is gone, else of the release), which the
 * sweep queues once it is older than the purge queue's visibility timeout.
 */
export async function markDeletedProviderData(now: Date): Promise<string> {
  const releases = new Map<string, Set<string>>();
  await scanEach(
    {
      FilterExpression: '#e IN (:assertion, :run)',
      ProjectionExpression: 'PK, SK, #e, #p, #r',
      ExpressionAttributeNames: { '#e': 'entity', '#p': 'provider_id', '#r': 'release_id' },
      ExpressionAttributeValues: { ':assertion': 'assertion', ':run': 'import-run' },
    },
    (item) => {
      const data = parseStored(LEGACY().providerData, item);
      releases.set(data.provider_id, (releases.get(data.provider_id) ?? new Set()).add(data.release_id));
    },
  );
  const wanted: Key[] = [...releases].flatMap(([p, rs]) => [keys.externalProvider(p), ...[...rs].map((r) => keys.assuranceRelease(p, r))]);
  const found = await getMany(wanted);
  const exists = (k: Key) => found.has(keyString(k));
  const subjects: PurgeSubject[] = [...releases].flatMap(([p, rs]) =>
    exists(keys.externalProvider(p))
      ? [...rs].filter((r) => !exists(keys.assuranceRelease(p, r))).map((r) => ({ provider_id: p, release_id: r }))
      : [{ provider_id: p }],
  );
  await putAll(subjects.map((subject) => purgeMarkerItem(subject, 'migration', now)));
  return `marked ${subjects.length} deleted providers and releases for purging`;
}

/** Users created before the console listed them: the users index entry (by email) that its Users page queries. */
export async function indexUsers(): Promise<string> {
  let indexed = 0;
  await scanEach(
    {
      FilterExpression: '#e = :user AND attribute_not_exists(#g)',
      ExpressionAttributeNames: { '#e': 'entity', '#g': 'GSI1PK' },
      ExpressionAttributeValues: { ':user': 'user' },
    },
    async (user) => {
      if (await updateIf({ PK: user.PK, SK: user.SK }, usersIndex(parseStored(LEGACY().user, user).email), itemPresent())) indexed++;
    },
  );
  return `indexed ${indexed} users for the console`;
}

/**
 * Assertions stored before they had ULIDs (ids `<release>-ism-1691`), each moved to the key of its
 * ULID; then, as `deleted-provider-data` does, a purge marker for what releases deleted since the
 * deploy left behind (their purge read the new keys before the move).
 */
export async function moveAssertionsToUlids(now: Date): Promise<string> {
  const outcomes = { moved: 0, superseded: 0, gone: 0 };
  await scanEach(
    {
      FilterExpression: '#e = :assertion AND contains(#id, :legacy)',
      ExpressionAttributeNames: { '#e': 'entity', '#id': 'id' },
      ExpressionAttributeValues: { ':assertion': 'assertion', ':legacy': '-ism-' },
    },
    async (item) => {
      outcomes[await moveLegacyAssertion(item)]++;
    },
  );
  const marked = await markDeletedProviderData(now);
  return `moved ${outcomes.moved} assertions to their ULIDs and dropped ${outcomes.superseded} that an import had replaced; ${marked}`;
}

/**
 * The steps, oldest first: a new step is one entry at the end, under a name never used before
 * (the name is what the installation marker records).
 */
/**
 * Uploads left in quarantine by a release before uploads awaiting their scan were indexed: without
 * the watch item the sweep would never queue their scan again. Written only while the upload is
 * still in quarantine and has none, so the sweep finds it stalled at its next tick.
 */
export async function watchQuarantinedUploads(): Promise<string> {
  let watched = 0;
  await scanEach(
    {
      FilterExpression: '#e = :upload AND #s = :quarantine',
      ExpressionAttributeNames: { '#e': 'entity', '#s': 'status' },
      ExpressionAttributeValues: { ':upload': 'upload', ':quarantine': 'quarantine' },
    },
    async (item) => {
      const upload = parseStored(LEGACY().upload, item);
      const id = upload.id;
      const watch = { ...scanWatchPut(upload), condition: itemAbsent() };
      const stillQuarantined = { kind: 'check' as const, key: keys.upload(id), condition: attributeEquals('status', 'quarantine') };
      try {
        await commit([watch, stillQuarantined]);
        watched++;
      } catch (error) {
        // Watched already, or settled since the scan read it: nothing to do.
        if (!(error instanceof UnmappedConditionError)) throw error;
      }
    },
  );
  return `watched ${watched} uploads awaiting their scan`;
}

/**
 * Controls stored before issue 25 copied their catalogue entry's statement and classifications and
 * each provider assertion's words onto the item, which took most items over 1 KB, so that every
 * write of one (a recalculation's above all) cost two write units: each is rewritten without them.
 */
export async function stripControlCopies(): Promise<string> {
  let stripped = 0;
  await scanEach(
    {
      FilterExpression: '#e = :control AND (attribute_exists(#s) OR attribute_exists(#c) OR attribute_exists(#g))',
      ExpressionAttributeNames: { '#e': 'entity', '#s': 'statement', '#c': 'classifications', '#g': 'provider_guidance' },
      ExpressionAttributeValues: { ':control': 'control' },
    },
    async (control) => {
      if (await stripCopiedText(control)) stripped++;
    },
  );
  return `stripped the copied catalogue text and provider words of ${stripped} controls`;
}

export const MIGRATIONS: readonly MigrationStep[] = [
  { name: 'project-summary-status-counters', run: recountProjectsWithoutStatusCounters },
  { name: 'organisation-members', run: rebuildOrganisationMembers },
  registerStep('register-row-order', 'backfilled the row order', backfillRowOrder),
  { name: 'import-runs-running-index', run: indexRunningImports },
  { name: 'deleted-provider-data', run: markDeletedProviderData },
  { name: 'import-runs-revision', run: reviseImportRuns },
  { name: 'console-users-index', run: indexUsers },
  { name: 'assertion-ulids', run: moveAssertionsToUlids },
  { name: 'uploads-scan-watch', run: watchQuarantinedUploads },
  { name: 'control-copied-text', run: stripControlCopies },
];

/**
 * Runs, in order, each step this installation has not recorded, and records it; one read when every
 * step is recorded. Steps write `now`, the run's instant; a marker records when its step finished
 * (by `clock`), since the steps of one run take minutes each on a large table and the operator reads
 * the marker as when that step was applied.
 */
export async function runMigrations(
  now: Date,
  steps: readonly MigrationStep[] = MIGRATIONS,
  clock: () => Date = () => new Date(),
): Promise<MigrationOutcome[]> {
  const recorded = await getMany(steps.map((s) => markerKey(s.name)));
  const outcomes: MigrationOutcome[] = [];
  for (const step of steps) {
    const marker = recorded.get(keyString(markerKey(step.name)));
    if (marker) {
      outcomes.push({ name: step.name, status: 'already applied', at: parseStored(LEGACY().marker, marker).applied_at });
      continue;
    }
    const result = await step.run(now);
    const at = clock().toISOString();
    await putItem({ ...markerKey(step.name), entity: 'migration', name: step.name, applied_at: at, result });
    outcomes.push({ name: step.name, status: 'applied', at, result });
  }
  return outcomes;
}
