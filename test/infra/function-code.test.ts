import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { App, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { Function as LambdaFunction, Runtime } from 'aws-cdk-lib/aws-lambda';
import { describe, expect, it } from 'vitest';
import { codeFiles } from '../../infra/bundling.js';
import { functionCode } from '../../infra/function-code.js';
import { scratchDir } from '../support/scratch.js';

const HTTP = fileURLToPath(new URL('../../functions/http/', import.meta.url));
const outdir = scratchDir('function-code-');

describe('function code in the CDK app, bundled for real', () => {
  it('gives each function the asset built from its own entry, index.mjs beside its chunks', { timeout: 240_000 }, async () => {
    const app = new App({ outdir });
    const stack = new Stack(app, 'FunctionCode');
    for (const name of ['meta', 'tasks']) {
      new LambdaFunction(stack, name, { code: functionCode(`${HTTP}${name}.ts`), handler: 'index.handler', runtime: Runtime.NODEJS_24_X });
    }
    app.synth();
    const keys = Object.values(Template.fromStack(stack).findResources('AWS::Lambda::Function')).map(
      (fn) => (fn.Properties as { Code: { S3Key: string } }).Code.S3Key,
    );
    expect(new Set(keys).size).toBe(2);
    for (const key of keys) {
      const asset = join(outdir, `asset.${key.replace(/\.zip$/, '')}`);
      expect(existsSync(join(asset, 'index.mjs'))).toBe(true);
      // The build of the bench and the bundle tests, plugins included: zod's JSON Schema converter is left out.
      const code = (await codeFiles(asset)).map((file) => readFileSync(file, 'utf8')).join('\n');
      expect(code).not.toMatch(/Unprocessed schema/);
    }
  });
});
