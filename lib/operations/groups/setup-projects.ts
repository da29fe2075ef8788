import { setupArtefactOperations } from '../network-diagram.js';
import { populationOperations } from '../population.js';
import { setupScopeOperations } from '../project-scope.js';
import { setupHealthOperations } from '../setup-health.js';
import { setupProjectOperations } from '../setup-projects.js';
import type { AnyOperation } from '../operation.js';

/** What the setup-projects function serves: Setup projects, their health, scope, engagement, artefacts and population. */
export const operations = [
  ...setupProjectOperations,
  ...setupHealthOperations,
  ...setupScopeOperations,
  ...setupArtefactOperations,
  ...populationOperations,
] as unknown as readonly AnyOperation[];
