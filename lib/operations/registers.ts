import { definitionOperations } from './register-definitions.js';
import { rowOperations } from './register-rows.js';

/** The registers group: manifests and rows of system and organisation-shared registers. */
export const registerOperations = [...definitionOperations, ...rowOperations];
