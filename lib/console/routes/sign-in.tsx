import { writeAudit } from '../../store/audit.js';
import { consolePath } from '../config.js';
import { redirect } from '../http.js';
import { EnrolPage, SignInPage } from '../pages/auth.js';
import { html, type Route } from '../route.js';
import { deleteSessionCookie, loadSession } from '../session.js';

/** The sign-in and enrolment pages and sign-out; their ceremonies are the passkeys function's (ceremonies.tsx). */
export const signInRoutes: Route[] = [
  {
    method: 'GET',
    path: '/sign-in',
    gate: 'public',
    handle: async (ctx) => {
      if (await loadSession(ctx.request, ctx.config, ctx.now)) return redirect(consolePath(ctx.config, '/'));
      const notice = ctx.request.query.get('signed-out') ? 'You are signed out.' : undefined;
      return html(<SignInPage ctx={ctx.page} notice={notice} />);
    },
  },
  { method: 'GET', path: '/enrol', gate: 'public', handle: async (ctx) => html(<EnrolPage ctx={ctx.page} />) },
  {
    method: 'POST',
    path: '/sign-out',
    gate: 'session',
    handle: async (ctx) => {
      await writeAudit({ ...ctx.audit, kind: 'CONSOLE_SIGNED_OUT', status: 303, actor_id: ctx.signedIn.user.id }, ctx.now);
      return redirect(consolePath(ctx.config, '/sign-in?signed-out=1'), [await deleteSessionCookie(ctx.signedIn)]);
    },
  },
];
