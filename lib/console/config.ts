import { publicOrigin, settings } from '../config.js';

export interface ConsoleConfig {
  /** The exact origin WebAuthn responses must come from. */
  origin: string;
  rpId: string;
  rpName: string;
  /** In front of /console and /api/v1 in every link (the API Gateway stage without a custom domain). */
  basePath: string;
  idleMs: number;
  absoluteMs: number;
  confirmationMs: number;
}

export function consoleConfig(): ConsoleConfig {
  const s = settings();
  const origin = publicOrigin(s);
  return {
    origin,
    rpId: s.CONSOLE_RP_ID ?? new URL(origin).hostname,
    rpName: 'Assessment Operations',
    basePath: s.CONSOLE_BASE_PATH,
    idleMs: s.CONSOLE_SESSION_IDLE_MINUTES * 60_000,
    absoluteMs: s.CONSOLE_SESSION_ABSOLUTE_HOURS * 3_600_000,
    confirmationMs: s.CONSOLE_CONFIRMATION_SECONDS * 1000,
  };
}

/** A console path as the browser reaches it. */
export const consolePath = (config: Pick<ConsoleConfig, 'basePath'>, path = '/') => `${config.basePath}/console${path}`;

/** The enrolment link handed to a new or recovering user: the secret rides in the fragment, which no server or log sees. */
export const enrolmentUrl = (config: Pick<ConsoleConfig, 'origin' | 'basePath'>, secret: string) =>
  `${config.origin}${consolePath(config, '/enrol')}#${secret}`;
