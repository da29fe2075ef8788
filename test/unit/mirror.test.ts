import { existsSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/** test/unit mirrors lib: a module's unit tests are at test/unit/<path under lib>/<name>.test.ts. */
const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** Modules that need no unit file of their own, each pattern with why. */
const ALLOWED: [RegExp, string][] = [
  [
    /^lib\/operations\/[a-z-]+\/(index|declare)\.ts$/,
    'group registry index and declaration helper: covered by the registry, OpenAPI and every-operation tests',
  ],
  [/^lib\/operations\/[a-z-]+\/[a-z-]+\.ts$/, 'operation declarations whose handlers read and write the table: exercised operation by operation in test/api'],
  [/^lib\/(render|operations)\/(index|registry)\.ts$/, 'registry index: covered by the OpenAPI/registry and renderer tests'],
  [
    /^lib\/(admin|local)\/main\.ts$|^lib\/operations\/(print-openapi|write-docs)\.ts$/,
    'command entry points: wiring, run by the CLI, local-runtime and docs tests',
  ],
  [/^lib\/console\/(pages|routes)\/[a-z-]+\.tsx?$|^lib\/console\/handler\.tsx$/, 'console pages and routes: driven in Chromium by test/browser'],
  [/^lib\/admin\/commands\/[a-z-]+\.ts$/, "the operator CLI's commands: each run as an operator runs it, a process per command, by test/api/cli*.test.ts"],
  [/^lib\/local\/[a-z-]+\.ts$/, 'local runtime (emulators, server, demo): started by every integration, API and browser test file'],
  [/^lib\/jobs\/[a-z-]+\.ts$/, 'queue workers over the table and bucket: exercised by test/integration and test/api'],
  [/^lib\/log\.ts$/, 'logger instance: wiring'],
  [/^lib\/render\/renderer\.ts$/, 'the renderer interface: types only, nothing runs'],
  [/^lib\/files\/s3-sdk\.ts$/, "re-exports of the S3 SDK's commands, the chunk lib/files/s3.ts loads: nothing of its own runs"],
  [
    /^lib\/store\/members\.ts$/,
    'membership sync, grants and recounts, whose behaviour is transactions racing one another on DynamoDB Local: test/integration/members.test.ts and member-races.test.ts',
  ],
  [
    /^lib\/store\/schema\.ts$/,
    'table bootstrap on DynamoDB Local: test/integration/store.test.ts (table bootstrap), and the setup of every integration and API test file',
  ],
];

function modules(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((e) => {
    const path = `${dir}/${e.name}`;
    if (e.isDirectory()) return modules(path);
    return /\.tsx?$/.test(e.name) && !e.name.endsWith('.d.ts') ? [path] : [];
  });
}

const mirrorOf = (module: string) => join(ROOT, 'test/unit', relative('lib', module).replace(/\.tsx?$/, '.test.ts'));
const libModules = modules('lib');
const untested = libModules.filter((m) => !existsSync(mirrorOf(m)));

describe('test/unit mirrors lib', () => {
  it('has a unit test for every module that is neither allowed without one nor pending', () => {
    expect(untested.filter((m) => !ALLOWED.some(([pattern]) => pattern.test(m)))).toEqual([]);
  });

  it('allows no pattern that matches no module', () => {
    expect(ALLOWED.filter(([pattern]) => !libModules.some((m) => pattern.test(m))).map(([, why]) => why)).toEqual([]);
  });
});
