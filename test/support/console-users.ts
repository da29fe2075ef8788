import { createUserAs } from '../../lib/auth/administration.js';
import { resetSettings } from '../../lib/config.js';
import type { Permission } from '../../lib/domain/permissions.js';
import { grantAccess } from '../../lib/store/identity.js';
import { fixtures, startApi } from './api.js';
import { consoleClient, enrolWith, softPasskey } from './console.js';

/** The console's origin is the test server's, known once it listens. */
export function useConsoleOrigin(base: string): void {
  process.env.CONSOLE_ORIGIN = base;
  resetSettings();
}

/**
 * The local server with the console at its own origin, sign-in attempts unlimited (the limit has a
 * test of its own), and an organisation with one project to bind tokens and access to.
 */
export async function startConsoleApi() {
  const api = await startApi({ CONSOLE_SIGN_IN_RATE_LIMIT_PER_MINUTE: '1000' });
  useConsoleOrigin(api.base);
  const organisationId = await fixtures.organisation(await fixtures.user());
  return { api, organisationId, projectId: await fixtures.project(organisationId) };
}

const cli = { request_id: 'test', method: 'CLI', route: 'test' };

/** A person enrolled through the console with a software passkey, signed in, with the installation access given. */
export async function consoleUser(base: string, options: { installation?: string[]; superUser?: boolean } = {}) {
  const { user, enrolment } = await createUserAs(
    { kind: 'operator' },
    { email: `${user_tag()}@test.invalid`, name: 'Console Person', superUser: options.superUser ?? false },
    cli,
    new Date(),
  );
  if (options.installation) await grantAccess(user.id, { kind: 'installation' }, options.installation as Permission[], new Date());
  const client = consoleClient(base);
  const passkey = softPasskey(user.id);
  const enrolled = await enrolWith(client, enrolment.secret, passkey, base);
  if (enrolled.status !== 200) throw new Error(`enrolment failed: ${enrolled.text}`);
  await client.get('/');
  return { user, client, passkey, secret: enrolment.secret };
}

let n = 0;
const user_tag = () => `person-${Date.now()}-${++n}`;
