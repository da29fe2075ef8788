import { readSettings } from '../config.js';
import { javaProblem, portProblem } from './emulators.js';

/**
 * Every setting, checked before anything starts: the API's functions read a setting only when a
 * request first needs it, so a bad one would otherwise surface as a failed request later.
 */
function checkedSettings() {
  try {
    return readSettings(process.env);
  } catch (error) {
    console.error(`Could not start: ${(error as Error).message}`);
    process.exit(1);
  }
}

/** `npm start`: the API on embedded emulators, persisted under DATA_DIR. */
async function main(): Promise<void> {
  // Node 20 is supported locally (DESIGN); Lambda runs Node 24, so the SDK's notice is noise here.
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  const { PORT, DATA_DIR } = checkedSettings();
  const problem = javaProblem() ?? (await portProblem(PORT));
  if (problem) {
    console.error(problem);
    process.exit(1);
  }
  // Loading the runtime (the AWS SDK, every function's handler) took about 2.5 s of CPU: a start
  // refused above does without it.
  const { runLocal } = await import('./run.js');
  await runLocal({ port: PORT, dataDir: DATA_DIR });
}

await main();
