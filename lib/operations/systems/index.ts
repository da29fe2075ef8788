import { contactOperations } from './contacts.js';
import { systemContextOperations } from './context.js';
import { systemOperations } from './systems.js';
import type { AnyOperation } from '../kernel/operation.js';

/** What the systems function serves: systems, their context and contacts. */
export const operations: readonly AnyOperation[] = [...systemOperations, ...systemContextOperations, ...contactOperations];
