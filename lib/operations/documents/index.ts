import { documentOperations } from './documents.js';
import type { AnyOperation } from '../kernel/operation.js';

/** What the documents function serves: the catalogue, output rows and starting and polling generations. */
export const operations: readonly AnyOperation[] = [...documentOperations];
