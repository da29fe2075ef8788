import type { Router } from '../../operations/kernel/router.js';
import { methodNotAllowed, notFound } from '../../errors.js';
import type { Middleware } from '../state.js';

/** Finds the declared operation; unknown paths are 404 and known paths with another method 405. */
export function route(router: Router): Middleware {
  return {
    before: (request) => {
      const m = router.match(request.event.httpMethod, request.event.path);
      if (m.kind === 'unknown') throw notFound('No operation exists at this path.');
      if (m.kind === 'wrong-method') throw methodNotAllowed(m.allow);
      request.state.operation = m.operation;
      request.state.rawParams = m.params;
    },
  };
}
