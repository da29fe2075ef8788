import { buildFunction } from './bundling.js';

/**
 * `node --import tsx infra/build-function.ts <entry> <outdir> [injected module...]`: one function's
 * build, for the CDK app's asset bundling, which must be synchronous while esbuild takes plugins
 * only in its asynchronous API (functionCode runs this in a child process and waits for it, and
 * gives it the injected modules it has written).
 */
const [entry, outdir, ...inject] = process.argv.slice(2);
if (!entry || !outdir) {
  console.error('usage: infra/build-function.ts <entry> <outdir> [injected module...]');
  process.exit(2);
}
await buildFunction(entry, outdir, inject.length > 0 ? inject : undefined);
