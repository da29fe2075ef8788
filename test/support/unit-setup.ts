import { afterAll } from 'vitest';

/**
 * Setup of each unit test file. The unit files share their worker's modules (vitest.config.ts), and
 * so its process.env: whatever a file sets there is put back at its end, so that the next file of
 * the worker starts from the environment this one started from.
 */
const environment = { ...process.env };

afterAll(() => {
  for (const name of Object.keys(process.env)) if (!(name in environment)) delete process.env[name];
  Object.assign(process.env, environment);
});
