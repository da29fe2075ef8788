import { createConsoleHandler } from '../../lib/console/handler.js';
import { passkeyCeremonies } from '../../lib/console/routes/ceremonies.js';

/** The console's passkey ceremonies on AWS, apart so that the console function carries no WebAuthn verification. */
export const handler = createConsoleHandler([passkeyCeremonies]);
