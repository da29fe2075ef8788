import type { QueueName } from '../lib/jobs/queues.js';
import type { Group } from '../lib/operations/operation.js';
import { OPERATIONS } from '../lib/operations/registry.js';

export interface GroupUses {
  files: boolean;
  queues: QueueName[];
}

/** What a group's function touches beyond the table: the union of its operations' `uses`. */
export function usesOf(group: Group): GroupUses {
  const operations = OPERATIONS.filter((op) => op.group === group);
  return {
    files: operations.some((op) => op.uses?.files === true),
    queues: [...new Set(operations.flatMap((op) => op.uses?.queues ?? []))].sort(),
  };
}
