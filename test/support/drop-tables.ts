import { afterAll } from 'vitest';
import { dropTestTables } from './services.js';

/** Setup file of the projects whose files work in a table of their own: each file's table is dropped after the file's own hooks (services.ts). */
afterAll(dropTestTables);
