import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { OPENAPI_PATH } from '../../lib/operations/kernel/router.js';
import { buildOpenApi } from '../../lib/operations/kernel/openapi.js';
import { OPERATIONS } from '../../lib/operations/registry.js';
import { createRouter } from '../../lib/operations/kernel/router.js';

const document = buildOpenApi(OPERATIONS);
const ajv = new Ajv2020({ strict: false, allErrors: true });
(addFormats as unknown as (a: Ajv2020) => void)(ajv);
ajv.addSchema(document, 'openapi');
const router = createRouter(OPERATIONS);

const pointer = (...segments: string[]) => segments.map((s) => s.replace(/~/g, '~0').replace(/\//g, '~1')).join('/');

/** The part of the document an `openapi#/...` reference points at. */
const schemaAt = (ref: string): unknown =>
  ref
    .slice('openapi#/'.length)
    .split('/')
    .reduce<unknown>((node, s) => (node as Record<string, unknown> | undefined)?.[s.replace(/~1/g, '/').replace(/~0/g, '~')], document);

/**
 * Ajv compiles a schema once for each place it is asked for, and the document's 1,169 JSON responses
 * hold 62 distinct schemas (1,051 of them the problem's $ref): under coverage, compiling each place
 * an API file reached took 5 % of its worker's CPU. Each distinct schema is compiled once here.
 */
const validators = new Map<string, ValidateFunction>();
/** Each place's validator once found, so that a response costs no walk of the document or stringify of its schema. */
const validatorsByRef = new Map<string, ValidateFunction>();
function validatorAt(ref: string): ValidateFunction {
  const found = validatorsByRef.get(ref);
  if (found) return found;
  const key = JSON.stringify(schemaAt(ref));
  let validate = validators.get(key);
  if (!validate) {
    validate = ajv.getSchema(ref);
    if (!validate) throw new Error(`no schema at ${ref}`);
    validators.set(key, validate);
  }
  validatorsByRef.set(ref, validate);
  return validate;
}

/**
 * Checks a response against the generated OpenAPI document: the status must be documented for the
 * operation, and the body must match the documented schema of that status and media type.
 */
export function assertMatchesOpenApi(method: string, path: string, status: number, contentType: string, body: unknown): void {
  const m = router.match(method, path);
  const mediaType = contentType.split(';')[0]!.trim();
  let ref: string;
  if (m.kind === 'found') {
    const responses = (document.paths as Record<string, Record<string, { responses: Record<string, unknown> }>>)[m.operation.path]![method.toLowerCase()]!
      .responses;
    const documented = responses[String(status)] as { content: Record<string, unknown> } | undefined;
    if (!documented) throw new Error(`${m.operation.id} answered ${status}, which its OpenAPI responses do not document`);
    if (!documented.content[mediaType]) throw new Error(`${m.operation.id} answered ${status} as ${mediaType}, which its OpenAPI responses do not document`);
    if (!/json/.test(mediaType)) return;
    ref = `openapi#/${pointer('paths', m.operation.path, method.toLowerCase(), 'responses', String(status), 'content', mediaType, 'schema')}`;
  } else if (path === OPENAPI_PATH && status === 200) {
    ref = `openapi#/${pointer('paths', '/openapi.json', 'get', 'responses', '200', 'content', mediaType, 'schema')}`;
  } else {
    if (mediaType !== 'application/problem+json') throw new Error(`unmatched route answered ${mediaType}`);
    ref = 'openapi#/components/schemas/Problem';
  }
  const validate = validatorAt(ref);
  if (!validate(body)) throw new Error(`response ${method} ${path} ${status} does not match OpenAPI: ${ajv.errorsText(validate.errors)}`);
}
