import type { QueueName } from '../queues/queues.js';

/** An item of the table as the stream carries it, unmarshalled. */
export type Image = Record<string, unknown>;

/** The job an item stands for: the message its queue gets, and what tells this job from the next one the same item starts. */
export interface Job {
  queue: QueueName;
  message: Record<string, string>;
  token: string;
}

/**
 * A kind of record whose write starts a job (the transactional outbox: the job record is the
 * outbox entry, so the request's own transaction is what queues the job). `pending` is what the
 * stream's filter matches in the new image beside the entity, in DynamoDB JSON; `job` decides
 * from the item itself, so that a record the filter let through (or the local reader, which does
 * not filter) starts a job only in the state that asks for one.
 */
export interface JobRecord {
  entity: string;
  queue: QueueName;
  pending: Record<string, unknown>;
  job: (item: Image) => Omit<Job, 'queue'> | undefined;
}

const idAfterHash = (key: unknown) => String(key).slice(String(key).indexOf('#') + 1);
const text = (value: unknown) => (typeof value === 'string' ? value : undefined);

export const JOB_RECORDS: readonly JobRecord[] = [
  {
    entity: 'upload',
    queue: 'scan',
    pending: { status: { S: ['quarantine'] } },
    job: (u) => (u.status === 'quarantine' && text(u.id) ? { message: { upload_id: String(u.id) }, token: String(u.id) } : undefined),
  },
  {
    entity: 'population-run',
    queue: 'populate',
    pending: { status: { S: ['running'] } },
    job: (r) =>
      r.status === 'running' && text(r.run_id) ? { message: { project_id: idAfterHash(r.PK), run_id: String(r.run_id) }, token: String(r.run_id) } : undefined,
  },
  {
    entity: 'document',
    queue: 'generate',
    pending: { generation: { M: { status: { S: ['queued'] } } } },
    job: (d) => {
      const g = d.generation as { id?: unknown; status?: unknown } | undefined;
      if (g?.status !== 'queued' || !text(g.id)) return undefined;
      return { message: { project_id: String(d.project_id), document_id: String(d.id), generation_id: String(g.id) }, token: String(g.id) };
    },
  },
  {
    entity: 'import-run',
    queue: 'import',
    pending: { status: { S: ['running'] } },
    job: (r) =>
      r.status === 'running' && text(r.run_id)
        ? { message: { provider_id: String(r.provider_id), artefact_id: String(r.artefact_id), run_id: String(r.run_id) }, token: String(r.run_id) }
        : undefined,
  },
  {
    // Every request folds into the marker and moves its generation: each one queues a pass, as a send per request did.
    entity: 'applicability-recalculation',
    queue: 'recalculate',
    // A marker stopped for lost authority keeps its generation: the old image tells that write apart.
    pending: {},
    job: (m) => {
      if (m.stopped !== undefined || typeof m.subject !== 'object' || m.subject === null) return undefined;
      return { message: Object.fromEntries(Object.entries(m.subject).map(([k, v]) => [k, String(v)])), token: String(m.generation) };
    },
  },
  {
    entity: 'provider-purge',
    queue: 'purge',
    pending: {},
    job: (m) =>
      text(m.provider_id)
        ? {
            message: { provider_id: String(m.provider_id), ...(text(m.release_id) ? { release_id: String(m.release_id) } : {}) },
            token: String(m.requested_at),
          }
        : undefined,
  },
];

const byEntity = new Map(JOB_RECORDS.map((r) => [r.entity, r]));

function jobOf(item: Image | undefined): Job | undefined {
  const kind = item ? byEntity.get(String(item.entity)) : undefined;
  const job = kind && item ? kind.job(item) : undefined;
  return job && kind ? { queue: kind.queue, ...job } : undefined;
}

/**
 * The job a write starts: the new image asks for a job that the old image did not already ask
 * for. A progress report or a lease renewal of a running job rewrites its record without
 * starting anything.
 */
export function jobStartedBy(newImage: Image | undefined, oldImage: Image | undefined): Job | undefined {
  const job = jobOf(newImage);
  if (!job) return undefined;
  const before = jobOf(oldImage);
  return before?.queue === job.queue && before.token === job.token ? undefined : job;
}

/**
 * The event source mapping's filter patterns (Lambda filter syntax on DynamoDB stream records):
 * records of one entity with what asks for its job in the new image. Kinds that ask the same way
 * share a pattern, which keeps the list within Lambda's default quota of five filters a mapping.
 * Filters see one image at a time, so they only narrow: jobStartedBy decides.
 */
export function streamFilterPatterns(): Record<string, unknown>[] {
  const groups = new Map<string, string[]>();
  for (const r of JOB_RECORDS) {
    const key = JSON.stringify(r.pending);
    groups.set(key, [...(groups.get(key) ?? []), r.entity]);
  }
  return [...groups].map(([pending, entities]) => ({ dynamodb: { NewImage: { entity: { S: entities }, ...JSON.parse(pending) } } }));
}
