import { taskOperations } from './tasks.js';
import type { AnyOperation } from '../kernel/operation.js';

/** What the tasks function serves: project tasks, their claims and comments. */
export const operations: readonly AnyOperation[] = [...taskOperations];
