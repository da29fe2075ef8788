import { createUserAs, reEnrolAs, setStatusAs, type IssuedEnrolment } from '../../auth/administration.js';
import { AdministrationRefusedError } from '../../auth/administrator.js';
import { consoleConfig, enrolmentUrl } from '../../console/config.js';
import type { UserStatus } from '../../store/users.js';
import { required, type Command } from '../options.js';
import { cliAudit, OPERATOR } from './operator.js';

/** The link a new or recovering user opens in the console; the CLI prints it once. */
const enrolmentOutput = (enrolment: IssuedEnrolment) => ({
  enrolment_url: enrolmentUrl(consoleConfig(), enrolment.secret),
  enrolment_expires_at: enrolment.expires_at,
});

const setStatus =
  (status: UserStatus): Command =>
  async (values, now, command) => {
    const id = required(values, 'user');
    await setStatusAs(OPERATOR, id, status, cliAudit(command), now);
    return { id, status };
  };

export const commands: Record<string, Command> = {
  'user create': async (values, now, command) => {
    const { user, enrolment } = await createUserAs(
      OPERATOR,
      { email: required(values, 'email'), name: required(values, 'name'), superUser: values['super-user'] === true },
      cliAudit(command),
      now,
    );
    return { id: user.id, ...enrolmentOutput(enrolment) };
  },
  'user enrol': async (values, now, command) => {
    const enrolment = await reEnrolAs(OPERATOR, required(values, 'user'), cliAudit(command), now);
    return { id: values.user, ...enrolmentOutput(enrolment) };
  },
  'user enable': setStatus('active'),
  'user disable': setStatus('disabled'),
  'user delete': setStatus('deleted'),
};

export const refusals = [AdministrationRefusedError];
