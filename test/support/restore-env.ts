import { afterAll } from 'vitest';
import { rereadEnvironment } from '../../lib/local/environment.js';

/**
 * Setup of each test file in the projects whose files share their worker's modules (vitest.config.ts),
 * and so its process.env and what lib built from it: whatever a file sets there is put back at its
 * end, and the settings, clients and token-hash key are forgotten, so that the next file of the
 * worker starts from the environment this one started from, not from this file's table or settings.
 */
const environment = { ...process.env };

afterAll(() => {
  for (const name of Object.keys(process.env)) if (!(name in environment)) delete process.env[name];
  Object.assign(process.env, environment);
  rereadEnvironment();
});
