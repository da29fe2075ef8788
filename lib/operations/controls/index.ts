import { controlOperations } from './controls.js';
import type { AnyOperation } from '../kernel/operation.js';

/** What the controls function serves: control lists, detail, edits and transitions. */
export const operations: readonly AnyOperation[] = [...controlOperations];
