import { logoOperations } from './logo.js';
import { organisationContextOperations } from './context.js';
import { organisationOperations } from './organisations.js';
import { getSetupOptions } from './setup-options.js';
import type { AnyOperation } from '../kernel/operation.js';

/** What the organisations function serves: organisations, their context, setup options and logo. */
export const operations: readonly AnyOperation[] = [...organisationOperations, ...organisationContextOperations, getSetupOptions, ...logoOperations];
