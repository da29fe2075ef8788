import * as z from 'zod';
import { once } from '../domain/validation.js';
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

const idAfterHash = (key: string) => key.slice(key.indexOf('#') + 1);

/**
 * A kind of record whose write starts a job, with the schema of what its image holds when it asks
 * for one: an image that does not match asks for nothing (it is not in that state, or it lacks
 * what the job needs). Each schema names only what its job reads, so that the stream's records
 * are judged on that alone.
 */
const jobRecord = <S extends z.ZodType>(
  entity: string,
  queue: QueueName,
  pending: Record<string, unknown>,
  asks: () => S,
  job: (asked: z.output<S>) => Omit<Job, 'queue'>,
): JobRecord => ({
  entity,
  queue,
  pending,
  job: (image) => {
    const asked = asks().safeParse(image);
    return asked.success ? job(asked.data) : undefined;
  },
});

const scanAsked = once(() => z.object({ status: z.literal('quarantine'), id: z.string() }));
const populationAsked = once(() => z.object({ PK: z.string(), status: z.literal('running'), run_id: z.string() }));
const generationAsked = once(() => z.object({ project_id: z.string(), id: z.string(), generation: z.object({ status: z.literal('queued'), id: z.string() }) }));
const importAsked = once(() => z.object({ status: z.literal('running'), provider_id: z.string(), artefact_id: z.string(), run_id: z.string() }));
// A marker stopped for lost authority keeps its generation: the old image tells that write apart.
const recalculationAsked = once(() => z.object({ stopped: z.never().optional(), subject: z.record(z.string(), z.string()), generation: z.number() }));
const purgeAsked = once(() => z.object({ provider_id: z.string(), release_id: z.string().nullish(), requested_at: z.string() }));

export const JOB_RECORDS: readonly JobRecord[] = [
  jobRecord('upload', 'scan', { status: { S: ['quarantine'] } }, scanAsked, (u) => ({ message: { upload_id: u.id }, token: u.id })),
  jobRecord('population-run', 'populate', { status: { S: ['running'] } }, populationAsked, (r) => ({
    message: { project_id: idAfterHash(r.PK), run_id: r.run_id },
    token: r.run_id,
  })),
  jobRecord('document', 'generate', { generation: { M: { status: { S: ['queued'] } } } }, generationAsked, (d) => ({
    message: { project_id: d.project_id, document_id: d.id, generation_id: d.generation.id },
    token: d.generation.id,
  })),
  jobRecord('import-run', 'import', { status: { S: ['running'] } }, importAsked, (r) => ({
    message: { provider_id: r.provider_id, artefact_id: r.artefact_id, run_id: r.run_id },
    token: r.run_id,
  })),
  // Every request folds into the marker and moves its generation: each one queues a pass, as a send per request did.
  jobRecord('applicability-recalculation', 'recalculate', {}, recalculationAsked, (m) => ({ message: m.subject, token: String(m.generation) })),
  jobRecord('provider-purge', 'purge', {}, purgeAsked, (m) => ({
    message: { provider_id: m.provider_id, ...(m.release_id ? { release_id: m.release_id } : {}) },
    token: m.requested_at,
  })),
];

const byEntity = new Map(JOB_RECORDS.map((r) => [r.entity, r]));

function jobOf(item: Image | undefined): Job | undefined {
  const kind = typeof item?.entity === 'string' ? byEntity.get(item.entity) : undefined;
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
