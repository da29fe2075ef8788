import type { Readable } from 'node:stream';
import type * as z from 'zod';
import type { CredentialType, Permission } from '../../domain/permissions.js';
import type { TokenClaims } from '../../auth/tokens.js';
import type { Key } from '../../store/keys.js';
import type { Collection, Item } from '../../store/read.js';
import type { WriteItem } from '../../store/transact.js';

/** The Lambda functions of DESIGN.md section 2, one per operation group. */
export const GROUPS = [
  'organisations',
  'systems',
  'setup-projects',
  'projects',
  'controls',
  'evidence',
  'registers',
  'library',
  'documents',
  'tasks',
  'providers',
] as const;
export type Group = (typeof GROUPS)[number];

export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** Alternatives of permission sets, per credential type: any one set, held in full, suffices. */
export type PermissionRule = Partial<Record<CredentialType, Permission[][]>>;

/** Who is calling, after authentication and authority: the same for every operation. */
export interface Caller {
  tokenId: string;
  userId: string;
  type: CredentialType;
  organisationId?: string;
  projectId?: string;
  readOnly: boolean;
  /** Selected AND live AND dependencies satisfied. */
  permissions: ReadonlySet<Permission>;
  superUser: boolean;
}

export interface Page {
  number: number;
  size: number;
}

export interface OperationContext {
  requestId: string;
  now: Date;
  caller: Caller;
  /** Items read in the authentication round trip, by the keys the operation asked for. */
  prefetched: (key: Key) => Item | undefined;
  /** The items of a collection queried beside the authentication round trip, as the operation declared it. */
  prefetchedCollection: (collection: Collection) => Item[];
  /** If-Match as sent (only on operations that require it). */
  ifMatch?: string;
  page: Page;
}

export interface HandlerInput<P, Q, B> {
  params: P;
  query: Q;
  body: B;
}

/**
 * A file answered as it is: bytes made in the handler, or an object streamed from storage as it
 * is read (never held whole in memory; only the downloads function, which streams, serves these).
 */
export type FileAnswer = {
  contentType: string;
  /** Content-Disposition; inline unless given. */
  disposition?: string;
  /** What identifies the bytes beyond their type, such as the repository commit they were read at. */
  headers?: Record<string, string>;
} & ({ bytes: Buffer } | { stream: Readable; length: number });

export interface OperationResult<R> {
  data: R;
  status?: number;
  etag?: string;
  location?: string;
  total?: number;
  /** Writes committed in one transaction together with the audit record (and the receipt). */
  writes?: WriteItem[];
  /** Work that must follow a successful commit, such as queueing a job for what was just written. */
  afterCommit?: () => Promise<void>;
  /** A file answered as it is, instead of the JSON envelope (operations that declare `produces`). */
  file?: FileAnswer;
  /** Identifiers the audit record names (never request values). */
  auditTarget?: Record<string, string>;
  /** What a successful mutation's audit record keeps beyond identifiers, such as an edit reason. */
  auditDetails?: Record<string, string | number | boolean | null>;
}

export interface Operation<P extends z.ZodType = z.ZodType, Q extends z.ZodType = z.ZodType, B extends z.ZodType = z.ZodType, R extends z.ZodType = z.ZodType> {
  id: string;
  group: Group;
  method: Method;
  /** Relative to /api/v1, with {param} placeholders. */
  path: string;
  summary: string;
  description?: string;
  credential: CredentialType[];
  permission: PermissionRule;
  mode: 'read' | 'mutation';
  success: 200 | 201 | 202;
  /** Another success a handler may answer through its result's status, with the same body (a create that finds its resource made). */
  alsoSucceeds?: { status: 200; description: string };
  params: P;
  query: Q;
  body?:
    | { schema: B; mediaType: 'application/json' | 'application/merge-patch+json' }
    | {
        schema: B;
        mediaType: 'multipart/form-data';
        /**
         * What the OpenAPI form describes (zod cannot describe binary parts): the file and the
         * operation's own fields, converted by openapi.ts when the document is built, not when a function loads.
         */
        form: { what: string; fields: z.ZodRawShape; sources: readonly string[] };
        /** Reads the form into what the schema checks; declared here, so that only the functions that take forms bundle a form parser. */
        read: (raw: Buffer | undefined, contentType: string) => Promise<unknown>;
      };
  /** Media types of a file response; the operation answers bytes, not the JSON envelope. */
  produces?: readonly string[];
  /** Marks an operation this product adds beyond the 113 of the catalogue (OpenAPI x-extension). */
  extension?: string;
  /**
   * What the operation touches beyond the table; the CDK app grants each group function only these.
   * No queue: a job starts from the record the request writes (lib/jobs/dispatch.ts).
   */
  uses?: { files?: boolean };
  response: R;
  /** The success body is {data} alone, without meta (the contract declares only data for project inputs). */
  dataOnly?: boolean;
  paginated?: boolean;
  etag?: boolean;
  idempotencyKey?: boolean;
  ifMatch?: boolean;
  /** Statuses only this operation's handler answers: the pipeline's, which follow from the declaration, are derivedErrors'. */
  errors: number[];
  sideEffects: string[];
  /** The audit event kind of a successful mutation; defaults to the operation id in upper snake case. */
  auditKind?: string;
  /** Extra items read in the authentication round trip. Params are validated before this runs. */
  prefetch?: (params: z.output<P>, claims: TokenClaims) => Key[];
  /**
   * Small collections (a control's evidence items) read by Query in parallel with the
   * authentication BatchGetItem: still one sequential round trip. Params are validated before this runs.
   */
  prefetchCollections?: (params: z.output<P>) => Collection[];
  /**
   * Re-applies redaction to a stored result on receipt replay, as of now; the ETag follows the
   * view, since representations that differ never share one.
   */
  redact?: (stored: { data: z.output<R>; etag?: string }, caller: Caller) => { data: z.output<R>; etag?: string };
  /**
   * Runs before a receipt replay, with the items of this request's authentication round trip:
   * throws when what the original write needed no longer holds (a project since archived).
   * Authentication and permissions are checked on every request, replays included.
   */
  recheck?: (ctx: OperationContext, input: HandlerInput<z.output<P>, z.output<Q>, z.output<B>>) => void;
  handle: (ctx: OperationContext, input: HandlerInput<z.output<P>, z.output<Q>, z.output<B>>) => Promise<OperationResult<z.output<R>>>;
}

/**
 * A schema, or the function that builds it. A function is built at the operation's first use (its
 * first request, or the API description), not when the function's modules load: a cold function
 * then builds only the schemas of the request it serves (issue 23, Function size).
 */
export type Deferred<S> = S | (() => S);

type Body<B extends z.ZodType> = NonNullable<Operation<z.ZodType, z.ZodType, B>['body']>;
/** A body as declared: its schema, and a form's described fields, may be deferred. */
type DeferredBody<B extends z.ZodType> =
  Body<B> extends infer V
    ? V extends { form: infer F }
      ? Omit<V, 'schema' | 'form'> & { schema: Deferred<B>; form: Omit<F, 'fields'> & { fields: Deferred<z.ZodRawShape> } }
      : V extends { schema: B }
        ? Omit<V, 'schema'> & { schema: Deferred<B> }
        : never
    : never;

/**
 * What a declaration writes by hand: the group comes from the group's declarer, the mode from the
 * method (a GET reads, anything else mutates), and `errors` lists only the statuses the handler
 * itself answers (none by default: the pipeline's are derivedErrors'). Its schemas may be deferred.
 */
export type Declaration<P extends z.ZodType, Q extends z.ZodType, B extends z.ZodType, R extends z.ZodType> = Omit<
  Operation<P, Q, B, R>,
  'group' | 'mode' | 'errors' | 'params' | 'query' | 'body' | 'response'
> & { errors?: number[]; params: Deferred<P>; query: Deferred<Q>; body?: DeferredBody<B>; response: Deferred<R> };

export const modeOf = (method: Method): Operation['mode'] => (method === 'GET' ? 'read' : 'mutation');

/**
 * Makes a deferred member of `target` a property that builds it on first read and then holds the
 * schema itself, so that every reader (validation, the unit of work, the API description) sees a
 * plain zod schema, the same instance each time.
 */
function buildOnFirstRead(target: object, key: string) {
  const value: unknown = Reflect.get(target, key);
  if (typeof value !== 'function') return;
  Object.defineProperty(target, key, {
    configurable: true,
    enumerable: true,
    get() {
      const built: unknown = value();
      Object.defineProperty(target, key, { value: built, configurable: true, enumerable: true, writable: true });
      return built;
    },
  });
}

/** The declarer of one group's operations (each group's `declare.ts`); it keeps the generic parameters inferred. */
export function declarationsOf(group: Group) {
  return <P extends z.ZodType, Q extends z.ZodType, B extends z.ZodType, R extends z.ZodType>(def: Declaration<P, Q, B, R>): Operation<P, Q, B, R> => {
    const op = { ...def, ...(def.body ? { body: { ...def.body } } : {}), group, mode: modeOf(def.method), errors: def.errors ?? [] };
    for (const key of ['params', 'query', 'response']) buildOnFirstRead(op, key);
    if (op.body) buildOnFirstRead(op.body, 'schema');
    if (op.body && 'form' in op.body) {
      op.body.form = { ...op.body.form };
      buildOnFirstRead(op.body.form, 'fields');
    }
    return op as Operation<P, Q, B, R>;
  };
}

export type AnyOperation = Operation<z.ZodType, z.ZodType, z.ZodType, z.ZodType>;

/**
 * The statuses the request pipeline can answer for an operation, read from its declaration, so that
 * no declaration can forget one (DESIGN.md section 4 has the steps). Every operation: 401 and 403
 * (credential, authority), 404 (boundary, access record), 422 (a repeated query parameter, a body
 * where none is taken), 429 (ingress and caller budgets), 500 and 503 (storage). A body adds 400
 * (unreadable) and 415; a form's reader also 413; If-Match 412 and 428; Idempotency-Key 400 and 409.
 */
export function derivedErrors(op: AnyOperation): number[] {
  const statuses = new Set([401, 403, 404, 422, 429, 500, 503]);
  const add = (...more: number[]) => {
    for (const status of more) statuses.add(status);
  };
  if (op.body) add(400, 415);
  if (op.body?.mediaType === 'multipart/form-data') add(413);
  if (op.ifMatch) add(412, 428);
  if (op.idempotencyKey) add(400, 409);
  return [...statuses].sort((a, b) => a - b);
}
