import { listDocumentOwners } from './document-owners.js';
import { libraryOperations } from './library.js';
import type { AnyOperation } from '../kernel/operation.js';

/** What the library function serves: the policy library and its document owners. */
export const operations: readonly AnyOperation[] = [listDocumentOwners, ...libraryOperations];
