import { ApiError, unsupportedMediaType, validationFailed } from '../errors.js';
import { mediaType, queryParams, rawBody } from '../event.js';
import { matched, type Middleware } from '../state.js';
import { bodyErrors, parameterErrors } from '../validation.js';

/** Step 7: path, query and body against the operation's zod schemas; 422 names every offence. */
export function validate(): Middleware {
  return {
    before: (request) => {
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
      if (op.body) {
        if (mediaType(event) !== op.body.mediaType) throw unsupportedMediaType([op.body.mediaType]);
        try {
          body = JSON.parse(raw?.toString('utf8') ?? '');
        } catch {
          throw new ApiError(400, 'malformed_json', 'Bad Request', 'The request body is not valid JSON.');
        }
        const parsed = op.body.schema.safeParse(body);
        if (!parsed.success) throw validationFailed(bodyErrors(parsed.error));
        body = parsed.data;
      } else if (raw && raw.length > 0 && event.httpMethod !== 'GET') {
        throw validationFailed([{ pointer: '', detail: 'this operation takes no request body', code: 'unexpected_body' }]);
      }
      state.input = { params: params.data, query: query.data, body };
    },
  };
}
