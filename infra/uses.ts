import { operationsServedBy, type FunctionName } from '../lib/operations/registry.js';

export interface GroupUses {
  files: boolean;
}

/** What an HTTP function touches beyond the table: the union of its operations' `uses`. */
export function usesOf(fn: FunctionName): GroupUses {
  return { files: operationsServedBy(fn).some((op) => op.uses?.files === true) };
}
