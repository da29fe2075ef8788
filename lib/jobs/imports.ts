import { stillAuthorised, type Attribution } from '../auth/revalidate.js';
import { listReleases } from '../catalogue/store.js';
import { releaseEntries } from '../store/catalogue-entries.js';
import { assertionId, type StoredAssertion } from '../domain/assertions.js';
import { parseCcm } from '../domain/imports/ccm.js';
import { exactness, type OtherRelease, releaseText } from '../domain/imports/exactness.js';
import { type ImportedRow, ImportRejected, type ParsedImport } from '../domain/imports/rows.js';
import { ERROR_LIMIT, type ImportRun } from '../domain/imports/run.js';
import { parseStructured } from '../domain/imports/structured.js';
import { logger } from '../log.js';
import { assertionBatchWrites, type Guard, releaseAssertions } from '../store/assertions.js';
import { itemAbsent, versionIs } from '../store/conditions.js';
import { releaseIsDraft } from '../store/guards.js';
import { finishImportRun, importRun, progressWrite, RunMovedOn, takeImportLease, updateImportRun } from '../store/imports.js';
import { commit } from '../store/transact.js';
import { leaseUntil } from '../queues/recovery.js';
import { RetrySoon } from '../queues/retry-soon.js';

/**
 * What the import job needs of an artefact: its identity and its released file (scanned clean).
 * The artefact store supplies it; tests give bytes directly.
 */
export interface ArtefactSource {
  provider_id: string;
  artefact_id: string;
  release_id: string;
  ism_version_id: string;
  /** The released file's bytes; called once per delivery, after the run's lease is taken. */
  bytes: () => Promise<Uint8Array>;
}

export interface ImportMessage {
  provider_id: string;
  artefact_id: string;
  run_id: string;
}

/** Transaction items per batch: DynamoDB's 100, less the release's counts and the run's progress. */
const BATCH_ITEMS = 98;
/** Batches rewritten after a review landed between reading an assertion and writing it. */
const RACE_ATTEMPTS = 3;

class ReleaseChanged extends Error {
  override readonly name = 'ReleaseChanged';
}
class IsmReleaseMissing extends Error {
  override readonly name = 'IsmReleaseMissing';
}
class AuthorisationLost extends Error {
  override readonly name = 'AuthorisationLost';
}
class AssertionChanged extends Error {
  override readonly name = 'AssertionChanged';
}

const attributionOf = (run: ImportRun): Attribution => ({
  tokenId: run.token_id,
  userId: run.started_by,
  scope: { kind: 'installation' },
  permissions: ['manage-org-hierarchy'],
});

/**
 * The import job of one run: parses the artefact, judges each row's exactness against the ISM
 * release the artefact names and writes the assertions in transactions of up to 98 items, each
 * with the release's counts and the run's progress, so a redelivery resumes exactly where the
 * last committed batch ended and never counts a row twice. Revalidates its starter before the
 * first write and before every batch (seed boundary rule 5).
 */
export async function importAssertions(message: ImportMessage, source: (m: ImportMessage) => Promise<ArtefactSource | undefined>, now: Date): Promise<void> {
  const run = await importRun(message.provider_id, message.artefact_id);
  if (run?.run_id !== message.run_id || run.status !== 'running') return;
  try {
    await takeImportLease(run, new Date(leaseUntil(now)), now);
  } catch (error) {
    if (error instanceof RunMovedOn) throw new RetrySoon(`import run ${run.run_id} is leased by another delivery`, 30);
    throw error;
  }
  try {
    if (!(await stillAuthorised(attributionOf(run), now))) throw new AuthorisationLost();
    const artefact = await source(message);
    if (!artefact) return await finishImportRun(run, { status: 'failed', at: new Date(), code: 'artefact_gone' });
    // Exactness is judged against the ISM release the run was started for; an artefact moved since then is imported again by a new run.
    if (artefact.release_id !== run.release_id || artefact.ism_version_id !== run.ism_version_id) {
      return await finishImportRun(run, { status: 'failed', at: new Date(), code: 'artefact_changed' });
    }
    const parsed = await parse(run, await artefact.bytes());
    const rows = await judged(run, parsed.rows);
    if (!run.progress) {
      const progress = { rows: rows.length, written: 0, exact: rows.filter((r) => r.exact).length };
      await updateImportRun(run, {
        progress,
        errors: parsed.errors.slice(0, ERROR_LIMIT),
        error_count: parsed.errors.length,
        lease_until: leaseUntil(new Date()),
      });
      run.progress = progress;
      run.revision++;
    }
    await writeRows(run, rows);
    await finishImportRun(run, { status: 'completed', at: new Date() });
  } catch (error) {
    if (error instanceof RunMovedOn) return;
    const [code, detail] = failureOf(error);
    if (code === 'import_failed') logger.error('import failed', { provider_id: run.provider_id, artefact_id: run.artefact_id, error: error as Error });
    await finishImportRun(run, { status: 'failed', at: new Date(), code, detail }).catch((e: unknown) => {
      if (!(e instanceof RunMovedOn)) throw e;
    });
  }
}

function failureOf(error: unknown): [string, string | undefined] {
  if (error instanceof ImportRejected) return [error.code, error.message];
  if (error instanceof AuthorisationLost) return ['authorisation_lost', undefined];
  if (error instanceof IsmReleaseMissing) return ['unknown_ism_release', 'the ISM release the artefact names is not imported'];
  if (error instanceof ReleaseChanged) return ['release_not_draft', 'the release was published, deleted or moved to another ISM release'];
  if (error instanceof AssertionChanged) return ['assertions_changed', 'assertions kept changing under the import; run it again'];
  return ['import_failed', undefined];
}

const parse = (run: ImportRun, bytes: Uint8Array): Promise<ParsedImport> => (run.kind === 'ccm' ? parseCcm(bytes) : Promise.resolve(parseStructured(bytes)));

type JudgedRow = ImportedRow & Pick<StoredAssertion, 'exact' | 'review_reason' | 'review_detail'>;

/** Each row with its exactness; other installed ISM releases are read only when a control is missing from the artefact's. */
async function judged(run: ImportRun, rows: ImportedRow[]): Promise<JudgedRow[]> {
  const installed = await listReleases();
  const release = installed.find((r) => r.id === run.ism_version_id);
  if (!release) throw new IsmReleaseMissing();
  const text = releaseText(release.version, await releaseEntries(release.id));
  let others: OtherRelease[] = [];
  if (rows.some((r) => !text.statements.has(r.control_id))) {
    others = await Promise.all(
      installed
        .filter((r) => r.id !== release.id)
        .map(async (r) => ({ version: r.version, controls: new Set((await releaseEntries(r.id)).filter((e) => e.kind === 'control').map((e) => e.id)) })),
    );
  }
  return rows.map((row) => {
    const judgement = exactness(row, text, others);
    return judgement.exact
      ? { ...row, exact: true, review_reason: null, review_detail: null }
      : { ...row, exact: false, review_reason: judgement.reason, review_detail: judgement.detail };
  });
}

const releaseGuard = (run: ImportRun): Guard => ({
  condition: releaseIsDraft(run.ism_version_id),
  onConditionFailed: () => new ReleaseChanged(),
});

const unchanged = (before: StoredAssertion | undefined): Guard => ({
  condition: before ? versionIs(before.version) : itemAbsent(),
  onConditionFailed: () => new AssertionChanged(),
});

/** The next batch from `start`: as many rows as fit one transaction beside the counts and the progress. */
function batchEnd(rows: JudgedRow[], start: number, stored: Map<string, StoredAssertion>): number {
  let items = 0;
  let end = start;
  while (end < rows.length) {
    const cost = stored.get(rows[end]!.control_id)?.status === 'confirmed' ? 2 : 1;
    if (items + cost > BATCH_ITEMS) break;
    items += cost;
    end++;
  }
  return end;
}

async function writeRows(run: ImportRun, rows: JudgedRow[]): Promise<void> {
  const progress = run.progress!;
  let stored = await releaseAssertions(run.provider_id, run.release_id);
  let races = 0;
  while (progress.written < rows.length) {
    if (progress.written > 0 && !(await stillAuthorised(attributionOf(run), new Date()))) throw new AuthorisationLost();
    const start = progress.written;
    const end = batchEnd(rows, start, stored);
    const at = new Date().toISOString();
    const pairs = rows.slice(start, end).map((row) => {
      const before = stored.get(row.control_id);
      const { ism_version: _v, ...content } = row;
      const after: StoredAssertion = {
        ...content,
        id: assertionId(run.release_id, row.control_id),
        provider_id: run.provider_id,
        release_id: run.release_id,
        artefact_id: run.artefact_id,
        status: 'pending',
        version: (before?.version ?? 0) + 1,
        imported_at: at,
        reviewed_by: null,
        reviewed_at: null,
      };
      return { after, before };
    });
    const writes = assertionBatchWrites(pairs, { provider_id: run.provider_id, id: run.release_id, guard: releaseGuard(run) }, unchanged);
    try {
      await commit([...writes, progressWrite(run, start, { ...progress, written: end }, leaseUntil(new Date()))]);
      progress.written = end;
      run.revision++;
    } catch (error) {
      // A review landed between reading and writing: read again and rewrite the batch, a few times at most.
      if (!(error instanceof AssertionChanged) || ++races > RACE_ATTEMPTS) throw error;
      stored = await releaseAssertions(run.provider_id, run.release_id);
    }
  }
}
