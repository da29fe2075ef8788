import { unsupportedMediaType, validationFailed, type FieldError } from '../../errors.js';
import { header, mediaType, queryParams, rawBody } from '../event.js';
import { matched, type Middleware } from '../state.js';
import { readJsonBody } from '../../domain/json-body.js';
import { bodyErrors, parameterErrors, pointerSegment } from '../../domain/validation.js';

/** Step 7: path, query and body against the operation's zod schemas; 422 names every offence. */
export function validate(): Middleware {
  return {
    before: async (request) => {
      const op = matched(request);
      const { state, event } = request;

      const params = op.params.safeParse(state.rawParams ?? {});
      if (!params.success) throw validationFailed(parameterErrors(params.error, 'path'));

      const { values, repeated } = queryParams(event);
      if (repeated.length) {
        throw validationFailed(repeated.map((name) => ({ pointer: `/query/${name}`, detail: 'is given more than once', code: 'repeated_parameter' })));
      }
      const query = op.query.safeParse(values);
      if (!query.success) throw validationFailed(parameterErrors(query.error, 'query'));
      if (op.paginated) {
        const q = query.data as { 'page[number]': number; 'page[size]': number };
        state.page = { number: q['page[number]'], size: q['page[size]'] };
      }

      let body: unknown;
      const raw = rawBody(event);
      // A JSON body that may be the empty object may also be left out (seed: population POST "with an
      // empty body"; a review's body is optional), with or without a JSON Content-Type.
      const absent = (!raw || raw.length === 0) && (!header(event, 'content-type') || mediaType(event) === 'application/json');
      if (op.body && absent && op.body.mediaType === 'application/json' && op.body.schema.safeParse({}).success) {
        body = op.body.schema.parse({});
      } else if (op.body) {
        if (mediaType(event) !== op.body.mediaType) throw unsupportedMediaType([op.body.mediaType]);
        body = op.body.mediaType === 'multipart/form-data' ? await op.body.read(raw, header(event, 'content-type')!) : readJsonBody(raw);
        const parsed = op.body.schema.safeParse(body);
        const hidden = prototypeKeys(body);
        const errors = parsed.success ? [] : bodyErrors(parsed.error).filter((e) => !hidden.some((h) => h.pointer === e.pointer));
        if (hidden.length || !parsed.success) throw validationFailed([...hidden, ...errors]);
        body = parsed.data;
      } else if (raw && raw.length > 0 && event.httpMethod !== 'GET') {
        throw validationFailed([{ pointer: '', detail: 'this operation takes no request body', code: 'unexpected_body' }]);
      }
      state.input = { params: params.data, query: query.data, body };
    },
  };
}

/**
 * Every __proto__ member of the body. No schema of this API has one, but zod records and object
 * copies drop the key silently (JSON.parse makes it an own property, assignment does not), so it
 * is refused here, while it is still visible.
 */
function prototypeKeys(value: unknown): FieldError[] {
  const found: FieldError[] = [];
  const stack: [unknown, string][] = [[value, '']];
  while (stack.length) {
    const [v, pointer] = stack.pop()!;
    if (v === null || typeof v !== 'object' || Buffer.isBuffer(v)) continue;
    for (const [key, child] of Object.entries(v)) {
      const at = `${pointer}/${pointerSegment(key)}`;
      if (key === '__proto__') found.push({ pointer: at, detail: 'is not a recognised property', code: 'unrecognized_property' });
      stack.push([child, at]);
    }
  }
  return found;
}
