import type { AnyOperation, Group } from './operation.js';
import { contactOperations } from './contacts.js';
import { organisationContextOperations, systemContextOperations } from './contexts.js';
import { logoOperations } from './logo.js';
import { organisationOperations } from './organisations.js';
import { registerOperations } from './registers.js';
import { getSetupOptions } from './setup-options.js';
import { systemOperations } from './systems.js';
import { setupArtefactOperations, getProjectNetworkDiagramFile } from './network-diagram.js';
import { populationOperations } from './population.js';
import { projectScopeOperations, setupScopeOperations } from './project-scope.js';
import { projectReadOperations, setupHealthOperations } from './projects.js';
import { setupProjectOperations } from './setup-projects.js';

/**
 * Every implemented operation, declared once in its group's module. The router of each group
 * function, the API Gateway routes, the local runtime, the OpenAPI document and the
 * authorization matrix tests all derive from this list.
 */
export const OPERATIONS: readonly AnyOperation[] = [
  ...organisationOperations,
  ...organisationContextOperations,
  getSetupOptions,
  ...logoOperations,
  ...systemOperations,
  ...systemContextOperations,
  ...contactOperations,
  ...registerOperations,
  ...setupProjectOperations,
  ...setupHealthOperations,
  ...setupScopeOperations,
  ...setupArtefactOperations,
  ...populationOperations,
  ...projectReadOperations,
  ...projectScopeOperations,
  getProjectNetworkDiagramFile,
] as unknown as AnyOperation[];

export function operationsOf(group: Group): AnyOperation[] {
  return OPERATIONS.filter((op) => op.group === group);
}

/** The groups that have at least one operation: the group functions that exist. */
export function activeGroups(): Group[] {
  return [...new Set(OPERATIONS.map((op) => op.group))];
}
