import { registerOperations } from './registers.js';
import type { AnyOperation } from '../kernel/operation.js';

/** What the registers function serves: register manifests and rows. */
export const operations: readonly AnyOperation[] = [...registerOperations];
