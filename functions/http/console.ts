import { assetReader } from '../../lib/console/assets.js';
import { createConsoleHandler } from '../../lib/console/handler.js';
import { consolePages } from '../../lib/console/routes/pages.js';

/** The console on AWS: its static files were copied beside the bundle (infra/bundling.ts). */
export const handler = createConsoleHandler(
  [consolePages],
  assetReader((name) => new URL(`./assets/${name}`, import.meta.url).pathname),
);
