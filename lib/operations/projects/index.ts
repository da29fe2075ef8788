import { projectScopeOperations } from './scope.js';
import { projectReadOperations } from './projects.js';
import type { AnyOperation } from '../kernel/operation.js';

/** What the projects function serves: the reads of a project credential outside its controls. */
export const operations: readonly AnyOperation[] = [...projectReadOperations, ...projectScopeOperations];
