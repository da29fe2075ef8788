/**
 * The job queues, one per kind of asynchronous work (DESIGN.md section 6). The CDK app, the local
 * runtime and the SQS adapter all derive from this list: queue, dead-letter queue, redrive count,
 * visibility timeout and the environment variable that carries the queue URL.
 */
export const QUEUES = {
  scan: { name: 'scan', worker: 'scan', visibilityTimeoutSeconds: 120, maxReceiveCount: 5, batchSize: 5 },
  populate: { name: 'populate', worker: 'populate', visibilityTimeoutSeconds: 300, maxReceiveCount: 5, batchSize: 1 },
  // One document a message; the visibility outlasts the worker's timeout so a running generation is never delivered twice at once.
  generate: { name: 'generate', worker: 'generate', visibilityTimeoutSeconds: 360, maxReceiveCount: 3, batchSize: 1 },
  recalculate: { name: 'recalculate', worker: 'recalculate', visibilityTimeoutSeconds: 300, maxReceiveCount: 5, batchSize: 1 },
  // One artefact a message; the visibility outlasts the import run's 200-second lease.
  import: { name: 'import', worker: 'import', visibilityTimeoutSeconds: 300, maxReceiveCount: 5, batchSize: 1 },
  // One deleted provider or release a message: its leftovers are deleted in batches, and a redelivery deletes what is left.
  purge: { name: 'purge', worker: 'purge', visibilityTimeoutSeconds: 300, maxReceiveCount: 5, batchSize: 1 },
} as const;

export type QueueName = keyof typeof QUEUES;

export const queueUrlVariable = (queue: QueueName) => `${queue.toUpperCase()}_QUEUE_URL`;

/** On AWS the stack sets `<QUEUE>_QUEUE_URL`; locally the runtime does, after creating the queue. */
export function queueUrl(queue: QueueName): string {
  const url = process.env[queueUrlVariable(queue)];
  if (!url) throw new Error(`${queueUrlVariable(queue)} is not set`);
  return url;
}
