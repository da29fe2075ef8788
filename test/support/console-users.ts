import { createUserAs } from '../../lib/auth/administration.js';
import { resetSettings } from '../../lib/config.js';
import type { Permission } from '../../lib/domain/permissions.js';
import { grantAccess } from '../../lib/store/identity.js';
import { consoleClient, enrolWith, softPasskey } from './console.js';

/** The console's origin is the test server's, known once it listens. */
export function useConsoleOrigin(base: string): void {
  process.env.CONSOLE_ORIGIN = base;
  resetSettings();
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
