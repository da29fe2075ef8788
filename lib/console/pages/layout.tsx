import type { Child } from 'hono/jsx';
import type { ConsoleConfig } from '../config.js';
import { consolePath } from '../config.js';
import type { SignedIn } from '../session.js';

/** What every page is given: where the console lives, and who is signed in (with their form token). */
export interface PageContext {
  config: ConsoleConfig;
  signedIn?: SignedIn;
}

interface LayoutProps extends PageContext {
  title: string;
  children: Child;
  /** Pages with a passkey ceremony load the WebAuthn browser library. */
  ceremonies?: boolean;
}

export const href = (ctx: PageContext, path: string) => consolePath(ctx.config, path);

/** A hidden field with the session's form token: every state-changing form carries it. */
export const Csrf = ({ ctx }: { ctx: PageContext }) => <input type="hidden" name="csrf" value={ctx.signedIn?.session.csrf ?? ''} />;

function Navigation({ ctx }: { ctx: PageContext }) {
  const signedIn = ctx.signedIn;
  if (!signedIn) return null;
  return (
    <nav aria-label="Main">
      <ul>
        <li>
          <a href={href(ctx, '/')}>Tokens</a>
        </li>
        <li>
          <a href={href(ctx, '/passkeys')}>Passkeys</a>
        </li>
        {signedIn.installation.has('manage-users') ? (
          <li>
            <a href={href(ctx, '/admin/users')}>Users</a>
          </li>
        ) : null}
        <li>
          <a href={href(ctx, '/reference')}>API reference</a>
        </li>
      </ul>
      <form method="post" action={href(ctx, '/sign-out')} class="inline">
        <Csrf ctx={ctx} />
        <span class="who">{signedIn.user.name}</span> <button type="submit">Sign out</button>
      </form>
    </nav>
  );
}

export function Layout({ config, signedIn, title, children, ceremonies }: LayoutProps) {
  const ctx = { config, signedIn };
  return (
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="console-base" content={consolePath(config, '')} />
        {signedIn ? <meta name="csrf-token" content={signedIn.session.csrf} /> : null}
        <title>{`${title} · Assessment Operations console`}</title>
        <link rel="stylesheet" href={href(ctx, '/assets/console.css')} />
        <link rel="icon" type="image/svg+xml" href={href(ctx, '/assets/favicon.svg')} />
        {ceremonies ? <script src={href(ctx, '/assets/webauthn.js')} defer /> : null}
        <script src={href(ctx, '/assets/console.js')} defer />
      </head>
      <body>
        <header>
          <a class="skip" href="#main">
            Skip to content
          </a>
          <p class="brand">Assessment Operations console</p>
          <Navigation ctx={ctx} />
        </header>
        <main id="main">
          <h1>{title}</h1>
          {children}
        </main>
      </body>
    </html>
  );
}

/** A message for a screen reader and the eye alike; scripts write ceremony outcomes into it. */
export const Status = ({ id = 'status', message, error }: { id?: string; message?: string; error?: boolean }) => (
  <p id={id} class={error ? 'status error' : 'status'} role={error ? 'alert' : 'status'} aria-live="polite">
    {message ?? ''}
  </p>
);

/** A notice about what just happened, announced to screen readers. */
export const Notice = ({ message }: { message?: string }) =>
  message ? (
    <p class="notice" role="status">
      {message}
    </p>
  ) : null;

/** A secret shown once (a token, an enrolment link): read-only, with a copy button the script wires. */
export const OneTimeSecret = ({ label, value }: { label: string; value: string }) => (
  <>
    <label for="secret">{label}</label>
    <div class="secret">
      <input id="secret" readonly value={value} size={70} autocomplete="off" spellcheck={false} />
      <button type="button" data-copy="secret">
        Copy
      </button>
    </div>
    <Status id="copy-status" />
  </>
);

/** An ISO timestamp as a person reads it, in UTC so that every reader sees the same. */
export const when = (iso: string | undefined) => (iso ? `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC` : 'never');

/** GitHub's way with last use: approximate, since it is written at most once an hour. */
export function approximately(iso: string | undefined, now: Date): string {
  if (!iso) return 'never';
  const hours = Math.floor((now.getTime() - Date.parse(iso)) / 3_600_000);
  if (hours < 1) return 'within the last hour';
  if (hours < 48) return `about ${hours} hour${hours === 1 ? '' : 's'} ago`;
  return `about ${Math.floor(hours / 24)} days ago`;
}
