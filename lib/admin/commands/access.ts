import { grantAccessAs, revokeAccessAs } from '../../auth/administration.js';
import { AdministrationRefusedError } from '../../auth/administrator.js';
import type { AccessScope } from '../../store/identity.js';
import { list, required, UsageError, type Command, type Values } from '../options.js';
import { cliAudit, OPERATOR } from './operator.js';

function scopeOf(values: Values): AccessScope {
  const chosen = [values.installation ? 'i' : '', values.organisation ? 'o' : '', values.project ? 'p' : ''].filter(Boolean);
  if (chosen.length !== 1) throw new UsageError('give exactly one of --installation, --organisation ID, --project ID');
  if (values.installation) return { kind: 'installation' };
  return values.organisation ? { kind: 'organisation', id: values.organisation } : { kind: 'project', id: values.project! };
}

export const commands: Record<string, Command> = {
  'access grant': async (values, now, command) => {
    const userId = required(values, 'user');
    const scope = scopeOf(values);
    const permissions = list(required(values, 'permissions'));
    await grantAccessAs(OPERATOR, userId, scope, permissions, cliAudit(command), now);
    return { user_id: userId, scope: scope.kind, ...(scope.kind !== 'installation' ? { id: scope.id } : {}), permissions };
  },
  'access revoke': async (values, now, command) => {
    const userId = required(values, 'user');
    const scope = scopeOf(values);
    return { user_id: userId, scope: scope.kind, revoked: await revokeAccessAs(OPERATOR, userId, scope, cliAudit(command), now) };
  },
};

export const refusals = [AdministrationRefusedError];
