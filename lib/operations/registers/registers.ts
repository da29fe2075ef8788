import { projectRegisterOperations } from './project-registers.js';
import { projectRowOperations } from './project-rows.js';
import { definitionOperations } from './definitions.js';
import { rowOperations } from './rows.js';

/** The registers group: manifests and rows of system, organisation-shared and project registers, and project reviews. */
export const registerOperations = [...definitionOperations, ...rowOperations, ...projectRegisterOperations, ...projectRowOperations];
