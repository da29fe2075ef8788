import type { AnyOperation, Group } from './operation.js';

/**
 * The Lambda function that serves an operation: its group's, or, for operations that answer a
 * file, the downloads function, which streams its responses (DESIGN.md section 8). Kept apart from
 * the registry so that a function can name itself without bundling every operation.
 */
export type FunctionName = Group | 'downloads';
export const functionOf = (op: AnyOperation): FunctionName => (op.produces ? 'downloads' : op.group);
