import * as z from 'zod';
import { API_PREFIX } from '../../domain/api-paths.js';
import { OPENAPI_OPERATION_ID } from './router.js';
import { derivedErrors, type AnyOperation } from './operation.js';
import { Meta, PaginatedMeta } from './common.js';
import { configuredValues } from '../../domain/validation.js';

export const API_VERSION = '1.14.0';

const STATUS_TEXT: Record<number, string> = {
  400: 'Idempotency-Key missing, empty or longer than 255 characters, malformed JSON or an unreadable form.',
  401: 'Credential missing, expired, revoked, invalid, of the wrong type for the endpoint, or account not active.',
  403: 'Selected or live permission, execution mode, project editability or workflow state does not allow the action.',
  404: 'Unknown ID, wrong parent, or not accessible to this credential.',
  405: 'The path exists but not with this method.',
  409: 'Conflict: Idempotency-Key reuse, a unique value taken, or a state that does not allow it.',
  412: 'Stale ETag: read again, reconcile and retry with the new ETag.',
  413: 'The file is above the inline limit: use an upload session.',
  415: 'The request body media type is not the one this operation takes.',
  422: 'Validation failed; errors lists the offending properties by JSON Pointer.',
  428: 'If-Match missing.',
  429: 'Rate limit hit; Retry-After says when to retry.',
  500: 'Unexpected failure; quote the request id.',
  502: 'The repository provider failed in another way (repository files).',
  503: 'Storage or the repository provider temporarily unavailable or throttled.',
  504: 'The repository provider did not answer in time (repository files).',
};

const Problem = z
  .object({
    type: z.string(),
    title: z.string(),
    status: z.number().int(),
    detail: z.string(),
    code: z.string(),
    instance: z.string(),
    request_id: z.string(),
    errors: z
      .array(z.object({ pointer: z.string(), detail: z.string(), code: z.string().optional() }))
      .optional()
      .meta({ description: 'For 422: the offending properties, by JSON Pointer (/query/<name> and /path/<name> for parameters).' }),
  })
  .catchall(z.unknown())
  .meta({ id: 'Problem', description: 'RFC 9457 problem details. Branch on status and code, not on detail.' });

type Json = Record<string, unknown>;

/**
 * What every file answer carries (lib/http/file-headers.ts, which the operations layer cannot
 * import): said once here for every operation that produces files, so no description can omit it.
 */
const FILE_ANSWER =
  'Every file answer carries Content-Security-Policy: sandbox (a browser opens it as a unique origin with no scripts, forms, popups or plugins) and X-Content-Type-Options: nosniff.';
const PDF_ANSWER = 'A PDF is answered as an attachment, since browsers either do not show a PDF in a sandboxed document or show it outside the sandbox.';

/** The operation's own description, followed by what every file answer carries when it produces files. */
function descriptionOf(op: AnyOperation): string | undefined {
  if (!op.produces) return op.description;
  const notes = [FILE_ANSWER, ...(op.produces.includes('application/pdf') ? [PDF_ANSWER] : [])];
  return [op.description, ...notes].filter(Boolean).join(' ');
}

/** A value the installation configures is listed as it is configured where the document is built. */
const configuredEnum = ({ zodSchema, jsonSchema }: { zodSchema: unknown; jsonSchema: Json }) => {
  const configured = configuredValues.get(zodSchema as z.ZodType);
  if (configured) jsonSchema.enum = [...configured.values()];
};

/** The form as OpenAPI states it: the file part is binary, which zod cannot describe; the rest, the exactly-one rule included, comes from the declaration's fields and sources. */
function formSchema({ what, fields, sources }: { what: string; fields: z.ZodRawShape; sources: readonly string[] }) {
  const own = z.toJSONSchema(z.object(fields), { io: 'input', unrepresentable: 'any' }).properties ?? {};
  return {
    type: 'object',
    properties: {
      file: { type: 'string', contentMediaType: 'application/octet-stream', description: `The ${what} (inline uploads).` },
      ...own,
    },
    oneOf: sources.map((source) => ({ required: [source] })),
    additionalProperties: false,
  };
}

/** Converts a zod schema, hoisting named schemas into components.schemas. */
function schemaOf(schema: z.ZodType, io: 'input' | 'output', components: Json): Json {
  const out = z.toJSONSchema(schema, { target: 'draft-2020-12', io, unrepresentable: 'any', override: configuredEnum }) as Json;
  delete out.$schema;
  const defs = (out.$defs ?? {}) as Json;
  delete out.$defs;
  const rewrite = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(rewrite);
    if (value && typeof value === 'object') {
      const obj: Json = {};
      for (const [k, v] of Object.entries(value)) {
        obj[k] = k === '$ref' && typeof v === 'string' ? v.replace('#/$defs/', '#/components/schemas/') : rewrite(v);
      }
      return obj;
    }
    return value;
  };
  for (const [name, def] of Object.entries(defs)) components[name] = rewrite(def);
  return rewrite(out) as Json;
}

const header = (description: string, schema: Json = { type: 'string' }) => ({ description, schema });

function parameters(op: AnyOperation, components: Json): Json[] {
  const list: Json[] = [];
  const addFrom = (schema: z.ZodType, where: 'path' | 'query') => {
    const json = schemaOf(schema, 'input', components);
    const props = (json.properties ?? {}) as Record<string, Json>;
    const required = new Set((json.required ?? []) as string[]);
    for (const [name, s] of Object.entries(props)) {
      const { description, ...rest } = s;
      list.push({ name, in: where, required: where === 'path' || required.has(name), ...(description ? { description } : {}), schema: rest });
    }
  };
  addFrom(op.params, 'path');
  addFrom(op.query, 'query');
  if (op.ifMatch)
    list.push({ name: 'If-Match', in: 'header', required: true, description: 'The strong ETag from the latest read, unchanged.', schema: { type: 'string' } });
  if (op.idempotencyKey) {
    list.push({
      name: 'Idempotency-Key',
      in: 'header',
      required: true,
      description: 'Replays this create for 24 hours.',
      schema: { type: 'string', minLength: 1, maxLength: 255 },
    });
  }
  return list;
}

function successResponse(op: AnyOperation, components: Json, status: number = op.success, description = op.summary): Json {
  const meta = op.paginated ? PaginatedMeta() : Meta();
  const envelope = op.dataOnly ? z.strictObject({ data: op.response }) : z.object({ data: op.response, meta });
  const headers: Json = {
    'X-Request-ID': header('Correlation id of this request.'),
    RateLimit: header('IETF RateLimit field: the budget closest to running out.'),
    'RateLimit-Policy': header('IETF RateLimit-Policy field: the budgets that apply.'),
  };
  if (op.etag) headers.ETag = header('Strong ETag of the representation; send it unchanged in If-Match.');
  if (status === 201 || status === 202) headers.Location = header('Where the created resource or the job status is read.');
  if (op.idempotencyKey)
    headers['Idempotency-Replayed'] = header('true when this is a replay of an earlier response.', { type: 'string', enum: ['true', 'false'] });
  if (op.produces) {
    headers['Cache-Control'] = header('private, no-store');
    headers['Content-Security-Policy'] = header('sandbox', { type: 'string', const: 'sandbox' });
    headers['X-Content-Type-Options'] = header('nosniff', { type: 'string', const: 'nosniff' });
    headers['Content-Disposition'] = header('inline, or attachment (downloads, and every PDF), with the file name where the file has one.');
    return {
      description,
      headers,
      // A file answered as JSON (an uploaded JSON file, a register's rows) is any JSON value, not a string.
      content: Object.fromEntries(
        op.produces.map((mt) => [mt, { schema: mt === 'application/json' ? { description: 'A JSON document.' } : { type: 'string', contentMediaType: mt } }]),
      ),
    };
  }
  return {
    description,
    headers,
    content: { 'application/json': { schema: schemaOf(envelope, 'output', components) } },
  };
}

/** The OpenAPI 3.1 document of every implemented operation, derived from the registry. */
export function buildOpenApi(operations: readonly AnyOperation[]): Json {
  const components: Json = {};
  const problemSchema = schemaOf(Problem, 'output', components);
  const problemRef = { $ref: '#/components/schemas/Problem' };
  if (!components.Problem) components.Problem = problemSchema;
  const paths: Record<string, Json> = {};
  for (const op of operations) {
    const statuses = [...new Set([...derivedErrors(op), ...op.errors])].sort((a, b) => a - b);
    const responses: Json = { [String(op.success)]: successResponse(op, components) };
    if (op.alsoSucceeds) responses[String(op.alsoSucceeds.status)] = successResponse(op, components, op.alsoSucceeds.status, op.alsoSucceeds.description);
    for (const status of statuses) {
      responses[String(status)] = {
        description: STATUS_TEXT[status] ?? 'Error.',
        headers: {
          'X-Request-ID': header('Correlation id of this request.'),
          ...(status === 429 || status === 503 ? { 'Retry-After': header('Seconds to wait before retrying.', { type: 'integer' }) } : {}),
        },
        content: { 'application/problem+json': { schema: problemRef } },
      };
    }
    const entry: Json = {
      operationId: op.id,
      summary: op.summary,
      ...(descriptionOf(op) ? { description: descriptionOf(op) } : {}),
      tags: [op.group],
      security: [{ bearer: [] }],
      parameters: parameters(op, components),
      responses,
      'x-permission': op.permission,
      'x-mode': op.mode === 'read' ? 'read-only-compatible' : 'mutation-enabled',
      'x-credential-types': op.credential,
      'x-side-effects': op.sideEffects,
    };
    if (op.extension) entry['x-extension'] = op.extension;
    if (op.body) {
      const schema = op.body.mediaType === 'multipart/form-data' ? formSchema(op.body.form) : schemaOf(op.body.schema, 'input', components);
      entry.requestBody = { required: true, content: { [op.body.mediaType]: { schema } } };
    }
    paths[op.path] = { ...paths[op.path], [op.method.toLowerCase()]: entry };
  }
  paths['/openapi.json'] = {
    get: {
      operationId: OPENAPI_OPERATION_ID,
      summary: 'This OpenAPI document. No credential needed.',
      tags: ['meta'],
      security: [],
      responses: {
        '200': { description: 'The OpenAPI 3.1 document.', content: { 'application/json': { schema: { type: 'object' } } } },
        '405': { description: STATUS_TEXT[405], content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } } },
      },
    },
  };
  return {
    openapi: '3.1.0',
    info: {
      title: 'Assessment Operations API',
      version: API_VERSION,
      description:
        'HTTPS JSON API for security-assessment management: organisations, systems, projects, ISM controls, evidence, assessments, registers, documents, tasks and external-provider assurance.',
      // The reference the console of this deployment renders from this document (lib/console, above this layer), relative like the server url.
      contact: { name: 'Assessment Operations API reference', url: '/console/reference' },
      license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' },
    },
    servers: [{ url: API_PREFIX, description: 'This deployment' }],
    tags: [...new Set(['meta', ...operations.map((o) => o.group)])].map((name) => ({ name, description: `${name} operations` })),
    paths,
    components: {
      schemas: components,
      securitySchemes: {
        bearer: {
          type: 'http',
          scheme: 'bearer',
          description:
            'Personal access token (aop_...), issued and revoked in the web console at /console/ of this deployment (passkey sign-in); no API operation issues one.',
        },
      },
    },
  };
}
