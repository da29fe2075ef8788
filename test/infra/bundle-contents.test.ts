import { isBuiltin } from 'node:module';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OPERATIONS, activeFunctions, functionOf, type FunctionName } from '../../lib/operations/registry.js';
import { buildBundles, type Bundles } from '../support/bundles.js';

/**
 * What each HTTP function's bundle holds, built the way the CDK app builds it: its own
 * operations and no other function's, and never the registry that aggregates them all.
 */
const FUNCTIONS = activeFunctions();
/** Every HTTP function: the groups', the meta function and the console's two. */
const ALL_HTTP = [...FUNCTIONS, 'meta', 'console', 'passkeys'];
let bundles: Bundles;

beforeAll(async () => {
  bundles = await buildBundles(Object.fromEntries(ALL_HTTP.map((name) => [name, `http/${name}`])));
}, 120_000);

afterAll(async () => {
  await bundles.remove();
});

/** Operation ids are string literals in the declarations, so they survive minification as quoted strings. */
const holdsId = (code: string, id: string) => new RegExp(`["'\`]${id}["'\`]`).test(code);
const servedBy = (fn: FunctionName) => OPERATIONS.filter((op) => functionOf(op) === fn);

describe('HTTP function bundles', () => {
  it.each(FUNCTIONS)('%s holds no operation id of another function', async (fn) => {
    const code = await bundles.code(fn);
    expect(OPERATIONS.filter((op) => functionOf(op) !== fn && holdsId(code, op.id)).map((op) => op.id)).toEqual([]);
  });

  it.each(FUNCTIONS)('%s holds its own operation ids', async (fn) => {
    const code = await bundles.code(fn);
    expect(servedBy(fn).some((op) => holdsId(code, op.id))).toBe(true);
  });

  it.each([...FUNCTIONS, 'meta'])('%s does not bundle the operation registry', (fn) => {
    expect(bundles.inputs(fn).filter((input) => input.endsWith('lib/operations/registry.ts'))).toEqual([]);
  });

  it.each([...FUNCTIONS, 'meta'])('%s carries no credential source but the environment', (fn) => {
    expect(bundles.inputs(fn).filter((input) => /credential-provider|nested-clients/.test(input))).toEqual([]);
  });

  it.each([...FUNCTIONS, 'meta'])('%s carries no git implementation: local repositories are read by the local runtime only', (fn) => {
    expect(bundles.inputs(fn).filter((input) => /isomorphic-git|lib\/repositories\/local\.ts/.test(input))).toEqual([]);
  });

  it.each([...FUNCTIONS, 'meta'])('%s carries no zod locale but English: a named `z` import keeps the whole namespace, locales included', async (fn) => {
    // The German locale's message for an invalid input, as the minified code spells it.
    expect(await bundles.code(fn)).not.toMatch(/Ung(\\xFC|ü)ltige Eingabe/);
  });

  it("console carries no WebAuthn verification: the ceremonies, with their X.509 and ASN.1 stack, are the passkeys function's", () => {
    expect(bundles.inputs('console').filter((input) => /@simplewebauthn|@peculiar|asn1js|tsyringe/.test(input))).toEqual([]);
    expect(bundles.inputs('passkeys').some((input) => input.includes('@simplewebauthn/server'))).toBe(true);
  });

  it.each(ALL_HTTP)('%s carries neither the debug package nor the S3 multipart uploader, which no request uses', (fn) => {
    expect(bundles.inputs(fn).filter((input) => /node_modules\/(debug|ms|supports-color)\/|@aws-sdk\/lib-storage/.test(input))).toEqual([]);
  });

  it.each(ALL_HTTP)('%s carries no zod JSON Schema converter: the API description is built at synth time, never in a function', async (fn) => {
    expect(bundles.inputs(fn).filter((input) => /^node_modules\/zod\/v4\/core\/(to-json-schema|json-schema-generator)\.js$/.test(input))).toEqual([]);
    // The converter's own errors, from its schema walk and from its template-literal processor.
    expect(await bundles.code(fn)).not.toMatch(/Unprocessed schema|Pattern not found in template literal/);
  });

  it.each(ALL_HTTP)('%s carries no event-stream codec: no function issues an S3 operation that streams events', (fn) => {
    expect(bundles.inputs(fn).filter((input) => input.includes('@smithy/core/dist-es/submodules/event-streams/'))).toEqual([]);
  });

  it.each(FUNCTIONS)("%s loads none of S3's REST-XML protocol at a cold start: only the S3 client, loaded at first use, needs it", (fn) => {
    expect(bundles.initInputs(fn).filter((input) => /@aws-sdk\/core\/dist-es\/submodules\/protocols\/xml\/|@aws-sdk\/xml-builder\//.test(input))).toEqual([]);
  });

  // The ULID rule (lib/domain/ids.ts): its string, regex and description, on the single-line text rule, whose checks lib/domain/validation.ts builds too.
  const ULID_RULE = 7;
  it.each(ALL_HTTP)('%s builds no schema while it loads but the ULID rule: the rest wait for their first use', async (fn) => {
    expect(await bundles.builtAtInit(fn)).toBeLessThanOrEqual(ULID_RULE);
  });

  it.each([...FUNCTIONS, 'meta'])('%s imports nothing from outside its own files but Node modules', (fn) => {
    expect(bundles.externals(fn).filter((specifier) => !isBuiltin(specifier))).toEqual([]);
  });

  it('meta bundles no operation module: the document and routes come in generated at build time', () => {
    const operationModules = bundles
      .inputs('meta')
      .filter((input) => input.startsWith('lib/operations/') && !input.endsWith('lib/operations/kernel/router.ts'));
    expect(operationModules).toEqual([]);
  });
});
