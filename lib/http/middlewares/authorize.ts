import { effectivePermissions, satisfies } from '../../auth/authority.js';
import type { CredentialType } from '../../domain/permissions.js';
import { asAccess } from '../../store/identity.js';
import { keyString } from '../../store/read.js';
import { forbidden, notFound, unauthorized } from '../../errors.js';
import { matched, type Middleware } from '../state.js';
import { principalOf } from './authenticate.js';
import { claimedAccessKey } from './load.js';

/**
 * Steps 4 and 5: the credential type and boundary of the route, then effective authority, the
 * intersection of the seed's Authentication part 3, read live on every request.
 */
export function authorize(): Middleware {
  return {
    before: (request) => {
      const op = matched(request);
      const { state } = request;
      const principal = principalOf(state);
      if (!principal) throw new Error('pipeline step ran before authentication');
      const { claims, token, user } = principal;
      const type: CredentialType = token.type;

      // Shared names never widen a route boundary (Authentication, boundary rule 1).
      if (!op.credential.includes(type)) throw unauthorized();
      const params = state.rawParams ?? {};
      if (type === 'organisation' && params.organisation !== undefined && params.organisation !== token.organisation_id) throw notFound();
      if (type === 'project' && params.project !== undefined && params.project !== token.project_id) throw notFound();

      const access = asAccess(state.items?.get(keyString(claimedAccessKey(claims))));
      if (!access && type !== 'administration') throw notFound();
      const live = access?.permissions ?? [];
      const permissions = effectivePermissions(type, token.abilities, live);

      state.caller = {
        tokenId: token.id,
        userId: user.id,
        type,
        organisationId: token.organisation_id,
        projectId: token.project_id,
        readOnly: token.read_only,
        permissions,
        superUser: user.super_user === true,
      };
      if (op.mode === 'mutation' && token.read_only) {
        throw forbidden('read_only_credential', 'This credential is read-only; mutations need a mutation-enabled credential.');
      }
      if (!satisfies(op.permission[type], permissions)) {
        throw forbidden('permission_denied', 'The credential or its user does not hold the permission this operation needs.');
      }
    },
  };
}
