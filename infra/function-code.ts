import { execFileSync } from 'node:child_process';
import { relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { AssetHashType, DockerImage } from 'aws-cdk-lib';
import { Code } from 'aws-cdk-lib/aws-lambda';
import { injectedModules } from './injected-modules.js';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const BUILD_SCRIPT = fileURLToPath(new URL('./build-function.ts', import.meta.url));

/**
 * A function's code for the CDK app, built by esbuild's API on this machine (no Docker, so synth
 * stays offline). Asset bundling must be synchronous and esbuild's synchronous API takes no
 * plugins (zodWithoutJsonSchema), so the same buildFunction runs in a child process; the hash is the output's,
 * as NodejsFunction does, rather than a fingerprint of the whole repository. The child is given
 * the injected modules this process wrote once, and loads neither the CDK (this module) nor the
 * operation registry: each build took 3.9 to 4.5 s of CPU, now 1.4 s (2.6 s went on importing
 * infra/bundling.ts with both, 0.9 s on deriving the API description again).
 */
export function functionCode(entry: string): Code {
  return Code.fromAsset(ROOT, {
    assetHashType: AssetHashType.OUTPUT,
    bundling: {
      // Never pulled: local bundling always succeeds or throws.
      image: DockerImage.fromRegistry('local-bundling-only'),
      // The CDK caches a bundled asset by its options, which see nothing of tryBundle's entry: the
      // entry must be among them, or every function would get the first one's code.
      environment: { ENTRY: relative(ROOT, entry) },
      local: {
        tryBundle(outputDir) {
          execFileSync(process.execPath, ['--import', 'tsx', BUILD_SCRIPT, entry, outputDir, ...injectedModules()], { cwd: ROOT, stdio: 'inherit' });
          return true;
        },
      },
    },
  });
}
