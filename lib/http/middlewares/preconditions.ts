import { badRequest, preconditionRequired } from '../../errors.js';
import { header } from '../event.js';
import { matched, type Middleware } from '../state.js';
import { validIdempotencyKey } from './load.js';

/** Step 8: If-Match where the catalogue requires it (428), Idempotency-Key on receipt creates (400). */
export function preconditions(): Middleware {
  return {
    before: (request) => {
      const op = matched(request);
      if (op.ifMatch && !header(request.event, 'if-match')) throw preconditionRequired();
      if (op.idempotencyKey && !validIdempotencyKey(header(request.event, 'idempotency-key'))) {
        throw badRequest('idempotency_key_invalid', 'This operation needs an Idempotency-Key header of 1 to 255 characters.');
      }
    },
  };
}
