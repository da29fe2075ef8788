import type { AnyOperation, Group } from './operation.js';
import { contactOperations } from './contacts.js';
import { controlOperations } from './controls.js';
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
  ...controlOperations,
] as unknown as AnyOperation[];

/**
 * The Lambda function that serves an operation: its group's, or, for operations that answer a
 * file, the downloads function, which streams its responses (DESIGN.md section 8).
 */
export type FunctionName = Group | 'downloads';
export const functionOf = (op: AnyOperation): FunctionName => (op.produces ? 'downloads' : op.group);

export function operationsServedBy(fn: FunctionName): AnyOperation[] {
  return OPERATIONS.filter((op) => functionOf(op) === fn);
}

/** The functions that serve at least one operation: the HTTP functions that exist. */
export function activeFunctions(): FunctionName[] {
  return [...new Set(OPERATIONS.map(functionOf))];
}
