import { href, Layout, Status, type PageContext } from './layout.js';

export const SignInPage = ({ ctx, notice }: { ctx: PageContext; notice?: string }) => (
  <Layout {...ctx} title="Sign in" ceremonies>
    <p>Sign in with the passkey you registered from your enrolment link. Your device asks you to unlock it (fingerprint, face or PIN).</p>
    {notice ? <p class="notice">{notice}</p> : null}
    <p>
      <button type="button" id="sign-in" data-ceremony="sign-in">
        Sign in with a passkey
      </button>
    </p>
    <Status />
    <p class="hint">Lost your device? Ask an administrator to re-enrol you: you will get a new enrolment link.</p>
  </Layout>
);

export const EnrolPage = ({ ctx }: { ctx: PageContext }) => (
  <Layout {...ctx} title="Set up your passkey" ceremonies>
    <p>This one-time link registers a passkey for your account. Name it after the device that keeps it, so you can tell your passkeys apart later.</p>
    <form id="enrol-form" data-ceremony="enrol">
      <label for="passkey-name">Passkey name</label>
      <input id="passkey-name" name="name" required maxlength={100} value="My passkey" autocomplete="off" />
      <button type="submit">Register passkey</button>
    </form>
    <Status />
  </Layout>
);

/**
 * The recent-confirmation gate: the action's own fields travel on in hidden inputs, and the script
 * submits them once a passkey assertion has confirmed the session.
 */
export const ConfirmPage = ({ ctx, action, fields, what }: { ctx: PageContext; action: string; fields: [string, string][]; what: string }) => (
  <Layout {...ctx} title="Confirm it is you" ceremonies>
    <p>{`To ${what}, confirm with your passkey. You will not be asked again for a few minutes.`}</p>
    <form id="confirm-form" method="post" action={action} data-ceremony="confirm">
      {fields.map(([name, value]) => (
        <input type="hidden" name={name} value={value} />
      ))}
      <button type="submit">Confirm with passkey</button> <a href={href(ctx, '/')}>Cancel</a>
    </form>
    <Status />
  </Layout>
);

export const ErrorPage = ({ ctx, status, message }: { ctx: PageContext; status: number; message: string }) => (
  <Layout {...ctx} title={status === 404 ? 'Not found' : status === 403 ? 'Not allowed' : status === 429 ? 'Too many attempts' : 'Something went wrong'}>
    <p>{message}</p>
    <p>
      <a href={href(ctx, '/')}>Back to the console</a>
    </p>
  </Layout>
);

export const ReferencePage = ({ ctx }: { ctx: PageContext }) => (
  <html lang="en">
    <head>
      <meta charset="utf-8" />
      <meta name="viewport" content="width=device-width, initial-scale=1" />
      <title>API reference · Assessment Operations</title>
      <link rel="stylesheet" href={href(ctx, '/assets/console.css')} />
      <link rel="icon" type="image/svg+xml" href={href(ctx, '/assets/favicon.svg')} />
    </head>
    <body>
      <p>
        <a href={href(ctx, '/')}>Back to the console</a>
      </p>
      <div id="reference" data-spec-url={`${ctx.config.basePath}/api/v1/openapi.json`} />
      <script src={href(ctx, '/assets/redoc.js')} defer />
      <script src={href(ctx, '/assets/reference.js')} defer />
    </body>
  </html>
);
