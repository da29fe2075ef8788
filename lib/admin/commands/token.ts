import { revokeTokenAs } from '../../auth/administration.js';
import { AdministrationRefusedError } from '../../auth/administrator.js';
import { issueTokenAs } from '../../auth/issue.js';
import { IssuanceError } from '../../auth/issuance.js';
import { list, required, UsageError, type Command } from '../options.js';
import { cliAudit, OPERATOR } from './operator.js';

export const commands: Record<string, Command> = {
  'token issue': async (values, now, command) => {
    const readOnly = required(values, 'read-only');
    if (readOnly !== 'true' && readOnly !== 'false') throw new UsageError('--read-only must be true or false');
    const issued = await issueTokenAs(
      required(values, 'user'),
      {
        token_type: required(values, 'type'),
        organisation_id: values.organisation,
        project_id: values.project,
        name: values.name ?? `CLI token ${now.toISOString()}`,
        abilities: list(required(values, 'abilities')),
        read_only: readOnly === 'true',
        expires_at: values['expires-at'],
      },
      cliAudit(command),
      now,
    );
    return { id: issued.id, token: issued.token, expires_at: issued.expires_at };
  },
  'token revoke': async (values, now, command) => {
    const id = required(values, 'id');
    await revokeTokenAs(OPERATOR, id, cliAudit(command), now);
    return { id, revoked: true };
  },
};

export const refusals = [AdministrationRefusedError, IssuanceError];
