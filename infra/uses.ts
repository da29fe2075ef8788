import type { QueueName } from '../lib/queues/queues.js';
import { operationsServedBy, type FunctionName } from '../lib/operations/registry.js';

export interface GroupUses {
  files: boolean;
  queues: QueueName[];
}

/** What an HTTP function touches beyond the table: the union of its operations' `uses`. */
export function usesOf(fn: FunctionName): GroupUses {
  const operations = operationsServedBy(fn);
  return {
    files: operations.some((op) => op.uses?.files === true),
    queues: [...new Set(operations.flatMap((op) => op.uses?.queues ?? []))].sort(),
  };
}
