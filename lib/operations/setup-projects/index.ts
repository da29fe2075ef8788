import { setupArtefactOperations } from './network-diagram.js';
import { populationOperations } from './population.js';
import { setupScopeOperations } from './scope.js';
import { setupHealthOperations } from './health.js';
import { setupProjectOperations } from './setup-projects.js';
import type { AnyOperation } from '../kernel/operation.js';

/** What the setup-projects function serves: Setup projects, their health, scope, engagement, artefacts and population. */
export const operations: readonly AnyOperation[] = [
  ...setupProjectOperations,
  ...setupHealthOperations,
  ...setupScopeOperations,
  ...setupArtefactOperations,
  ...populationOperations,
];
