import { projectRegisterOperations } from './project-registers.js';
import { projectRowOperations } from './project-register-rows.js';
import { definitionOperations } from './register-definitions.js';
import { rowOperations } from './register-rows.js';

/** The registers group: manifests and rows of system, organisation-shared and project registers, and project reviews. */
export const registerOperations = [...definitionOperations, ...rowOperations, ...projectRegisterOperations, ...projectRowOperations];
