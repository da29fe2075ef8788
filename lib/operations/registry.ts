import { functionOf, type FunctionName } from './kernel/function-of.js';
import type { AnyOperation } from './kernel/operation.js';
import { operations as controls } from './controls/index.js';
import { operations as documents } from './documents/index.js';
import { operations as downloads } from './downloads/index.js';
import { operations as evidence } from './evidence/index.js';
import { operations as library } from './library/index.js';
import { operations as organisations } from './organisations/index.js';
import { operations as projects } from './projects/index.js';
import { operations as providers } from './providers/index.js';
import { operations as registers } from './registers/index.js';
import { operations as setupProjects } from './setup-projects/index.js';
import { operations as systems } from './systems/index.js';
import { operations as tasks } from './tasks/index.js';

export { functionOf, type FunctionName };

/**
 * Each function's operations, as its entry under functions/http imports them: one module per
 * function (`<group>/index.ts`), so that a function bundles its own operations and no other's. Nothing here
 * may be imported from functions/.
 */
const SERVED: Partial<Record<FunctionName, readonly AnyOperation[]>> = {
  organisations,
  systems,
  registers,
  'setup-projects': setupProjects,
  projects,
  controls,
  evidence,
  documents,
  downloads,
  tasks,
  library,
  providers,
};

for (const [fn, ops] of Object.entries(SERVED)) {
  const stray = ops.filter((op) => functionOf(op) !== fn);
  if (stray.length) throw new Error(`${fn}/index.ts lists operations another function serves: ${stray.map((op) => op.id).join(', ')}`);
}

/**
 * Every implemented operation, declared once in its group's module and listed once in its
 * function's. The local runtime, the API Gateway routes, the OpenAPI document and the
 * authorization matrix tests all derive from this list.
 */
export const OPERATIONS: readonly AnyOperation[] = Object.values(SERVED).flat();

export function operationsServedBy(fn: FunctionName): AnyOperation[] {
  return OPERATIONS.filter((op) => functionOf(op) === fn);
}

/** The functions that serve at least one operation: the HTTP functions that exist. */
export function activeFunctions(): FunctionName[] {
  return [...new Set(OPERATIONS.map(functionOf))];
}
