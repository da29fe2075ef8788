import type { ConsoleFunction } from '../route.js';
import { adminRoutes } from './admin.js';
import { passkeyRoutes } from './passkeys.js';
import { signInRoutes } from './sign-in.js';
import { tokenRoutes } from './tokens.js';

/** The console function's routes: pages, sessions, tokens and user administration; the ceremonies are the passkeys function's. */
export const consolePages: ConsoleFunction = { name: 'http/console', routes: [...signInRoutes, ...tokenRoutes, ...passkeyRoutes, ...adminRoutes] };
