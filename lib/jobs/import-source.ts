import { getObject } from '../files/storage.js';
import { keys } from '../store/keys.js';
import { importRun } from '../store/imports.js';
import { toArtefact } from '../store/provider-artefacts.js';
import { getOne } from '../store/read.js';
import { type ArtefactSource, importAssertions, type ImportMessage } from './imports.js';
import { RetrySoon } from '../queues/retry-soon.js';

/** The run is queued before its transaction commits: a run this young may still arrive. */
const RECORD_GRACE_MS = 60_000;
const UNCOMMITTED_RETRY_SECONDS = 15;

class ReleasedFileMissing extends Error {
  override readonly name = 'ReleasedFileMissing';
}

/** The artefact as the import job reads it: its identity and its released file in S3, while it is a ready file of a release. */
async function artefactSource(message: ImportMessage): Promise<ArtefactSource | undefined> {
  const item = await getOne(keys.providerArtefact(message.provider_id, message.artefact_id));
  if (!item) return undefined;
  const artefact = toArtefact(item);
  const key = artefact.s3_key;
  if (artefact.file_status !== 'ready' || !key || !artefact.release_id || !artefact.ism_version_id) return undefined;
  return {
    provider_id: artefact.provider_id,
    artefact_id: artefact.id,
    release_id: artefact.release_id,
    ism_version_id: artefact.ism_version_id,
    bytes: async () => {
      const bytes = await getObject(key);
      if (!bytes) throw new ReleasedFileMissing(`released file ${key} is missing`);
      return bytes;
    },
  };
}

/** The import worker's job: waits a little for a run not committed yet, then runs the import against the stored artefact. */
export async function runImport(message: Record<string, string | undefined>, now: Date, sentAt: Date): Promise<void> {
  const job: ImportMessage = { provider_id: message.provider_id ?? '', artefact_id: message.artefact_id ?? '', run_id: message.run_id ?? '' };
  const run = await importRun(job.provider_id, job.artefact_id);
  if (run?.run_id !== job.run_id) {
    if (now.getTime() - sentAt.getTime() < RECORD_GRACE_MS) throw new RetrySoon(`import run ${job.run_id} is not committed yet`, UNCOMMITTED_RETRY_SECONDS);
    return;
  }
  await importAssertions(job, artefactSource, now);
}
