import { badRequest, preconditionRequired } from '../../errors.js';
import { header } from '../event.js';
import { matched, type Middleware } from '../state.js';
import { validIdempotencyKey } from './load.js';

/**
 * Step 8: If-Match where the catalogue requires it (428), Idempotency-Key on receipt creates (400).
 * The If-Match header is read here only; the operation compares what it names with its ETag.
 */
export function preconditions(): Middleware {
  return {
    before: (request) => {
      const op = matched(request);
      const ifMatch = header(request.event, 'if-match');
      if (op.ifMatch && !ifMatch) throw preconditionRequired();
      request.state.ifMatch = ifMatch;
      if (op.idempotencyKey && !validIdempotencyKey(header(request.event, 'idempotency-key'))) {
        throw badRequest('idempotency_key_invalid', 'This operation needs an Idempotency-Key header of 1 to 255 characters.');
      }
    },
  };
}
