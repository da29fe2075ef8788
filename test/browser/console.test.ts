import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createUserAs, grantAccessAs } from '../../lib/auth/administration.js';
import { consoleConfig, enrolmentUrl } from '../../lib/console/config.js';
import { SESSION_COOKIE, sha256 } from '../../lib/console/session.js';
import type { ConsolePermission } from '../../lib/domain/permissions.js';
import { listProjects } from '../../lib/operations/projects/projects.js';
import { itemPresent } from '../../lib/store/conditions.js';
import { grantAccess, userTokens } from '../../lib/store/identity.js';
import { keys } from '../../lib/store/keys.js';
import { updateIf } from '../../lib/store/update.js';
import { type Api, fixtures, startApi } from '../support/api.js';
import { launchBrowser, passkeyPage, screenshot } from '../support/browser.js';
import { useConsoleOrigin } from '../support/console-users.js';

const OPERATOR = { kind: 'operator' } as const;
const cli = { request_id: 'test', method: 'CLI', route: 'test' };

let api: Api;
let browser: Browser;
/** WebAuthn's relying-party id is a host name, never an IP address: the browser reaches the console as localhost. */
let origin: string;
let projectId: string;
const opened: BrowserContext[] = [];

beforeAll(async () => {
  [api, browser] = await Promise.all([startApi({ CONSOLE_SIGN_IN_RATE_LIMIT_PER_MINUTE: '1000' }), launchBrowser()]);
  origin = `http://localhost:${new URL(api.base).port}`;
  useConsoleOrigin(origin);
  projectId = await fixtures.project(await fixtures.organisation(await fixtures.user()));
});
afterEach(async () => {
  await Promise.all(opened.splice(0).map((c) => c.close()));
});
afterAll(async () => {
  await browser?.close();
  await api?.stop();
});

const consoleUrl = (path: string) => `${origin}/console${path}`;
const inDays = (days: number) => new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10);
const inputsWith = (token: string) => api.request('GET', `/api/v1/projects/${projectId}/inputs`, { token });

async function newPage(): Promise<{ context: BrowserContext; page: Page }> {
  const made = await passkeyPage(browser);
  opened.push(made.context);
  return made;
}

let people = 0;

/** A person the operator created, with read access to the fixture project, and their one-time enrolment link. */
async function createPerson(installation?: ConsolePermission[]) {
  people += 1;
  const { user, enrolment } = await createUserAs(
    OPERATOR,
    { email: `browser-${people}-${Date.now()}@test.invalid`, name: `Browser Person ${people}`, superUser: false },
    cli,
    new Date(),
  );
  await grantAccess(user.id, { kind: 'project', id: projectId }, ['view-projects', 'view-controls'], new Date());
  if (installation) await grantAccessAs(OPERATOR, user.id, { kind: 'installation' }, installation, cli, new Date());
  return { user, link: enrolmentUrl(consoleConfig(), enrolment.secret) };
}

async function enrol(page: Page, link: string): Promise<void> {
  await page.goto(link);
  await page.getByRole('button', { name: 'Register passkey' }).click();
  await page.getByRole('heading', { name: 'Your tokens' }).waitFor();
}

/** A person enrolled in a page of their own, signed in on the tokens page. */
async function signedInPerson(installation?: ConsolePermission[]) {
  const { user, link } = await createPerson(installation);
  const { context, page } = await newPage();
  await enrol(page, link);
  return { user, context, page };
}

async function fillProjectToken(page: Page, name: string): Promise<void> {
  await page.getByLabel('Name', { exact: true }).fill(name);
  await page.getByLabel('Project', { exact: true }).selectOption(projectId);
  await page.getByRole('checkbox', { name: 'view-projects', exact: true }).check();
  await page.getByRole('radio', { name: /^Read-only/ }).check();
  await page.getByLabel(/^Expires on/).fill(inDays(10));
}

describe('console passkeys in Chromium', () => {
  it('enrols from the link with a passkey that signs in again after signing out', async () => {
    const { link } = await createPerson();
    const { page } = await newPage();
    await page.goto(link);
    await screenshot(page, 'enrolment');
    await page.getByRole('button', { name: 'Register passkey' }).click();
    await page.getByRole('heading', { name: 'Your tokens' }).waitFor();
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByText('You are signed out.').waitFor();
    await screenshot(page, 'sign-in');
    await page.getByRole('button', { name: 'Sign in with a passkey' }).click();
    await page.waitForURL(consoleUrl('/'));
    await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toBe('Your tokens');
  });
});

describe('console tokens in Chromium', () => {
  it('issues a project token from the form, whose secret shown once opens the API', async () => {
    const { page } = await signedInPerson();
    await page.getByRole('link', { name: 'New token' }).click();
    await page.getByRole('navigation', { name: 'Token type' }).getByRole('link', { name: 'Project' }).click();
    await fillProjectToken(page, 'CI reader');
    await screenshot(page, 'new-token');
    await page.getByRole('button', { name: 'Issue token' }).click();
    await page.getByRole('heading', { name: 'Token issued' }).waitFor();
    await screenshot(page, 'token-issued');
    const secret = await page.getByLabel('Token', { exact: true }).inputValue();
    expect((await inputsWith(secret)).status).toBe(200);
  });

  it('revokes a token from the tokens list: the API refuses it from then on', async () => {
    const { user, page } = await signedInPerson();
    const secret = await fixtures.token(user.id, 'project', { projectId, abilities: ['view-projects'], readOnly: true });
    await page.reload();
    await screenshot(page, 'tokens');
    await page.getByRole('button', { name: 'Revoke test token' }).click();
    await page.getByText('The token is revoked').waitFor();
    expect((await inputsWith(secret)).status).toBe(401);
  });

  it("lets an administrator revoke another user's token from the user's page", async () => {
    const owner = await fixtures.user();
    await grantAccess(owner, { kind: 'project', id: projectId }, ['view-projects'], new Date());
    const secret = await fixtures.token(owner, 'project', { projectId, abilities: ['view-projects'], readOnly: true });
    const { page } = await signedInPerson(['manage-users']);
    await page.getByRole('link', { name: 'Users', exact: true }).click();
    await screenshot(page, 'admin-users');
    await page.goto(consoleUrl(`/admin/users/${owner}`));
    await screenshot(page, 'admin-user');
    await page.getByRole('button', { name: 'Revoke test token' }).click();
    await page.getByText('The token is revoked.').waitFor();
    expect((await inputsWith(secret)).status).toBe(401);
  });

  it('asks for the passkey when the confirmation is stale, then issues the token', async () => {
    const { user, context, page } = await signedInPerson();
    await page.goto(consoleUrl('/tokens/new?type=project'));
    await fillProjectToken(page, 'After confirmation');
    const cookie = (await context.cookies()).find((c) => c.name === SESSION_COOKIE)!;
    await updateIf(keys.consoleSession(sha256(cookie.value)), { confirmed_at: new Date(Date.now() - 10 * 60_000).toISOString() }, itemPresent());
    await page.getByRole('button', { name: 'Issue token' }).click();
    await page.getByRole('heading', { name: 'Confirm it is you' }).waitFor();
    await screenshot(page, 'confirm');
    await page.getByRole('button', { name: 'Confirm with passkey' }).click();
    await page.getByRole('heading', { name: 'Token issued' }).waitFor();
    expect(await userTokens(user.id)).toHaveLength(1);
  });

  it('issues nothing for a form another site posts with the signed-in browser', async () => {
    const { user, page } = await signedInPerson();
    const attacker = await attackerSite(consoleUrl('/tokens'), {
      token_type: 'project',
      binding: projectId,
      name: 'Planted',
      abilities: 'view-projects',
      read_only: 'false',
      expires: inDays(5),
    });
    try {
      const answer = page.waitForResponse((r) => r.url() === consoleUrl('/tokens') && r.request().method() === 'POST');
      await page.goto(attacker.url);
      expect((await answer).status()).toBe(403);
      expect(await userTokens(user.id)).toEqual([]);
    } finally {
      await attacker.close();
    }
  });
});

/**
 * The attacker's page, on another origin (127.0.0.1 and another port): it posts a form to the
 * console as soon as it loads. An inline script is fine here; this page is not the console's.
 */
async function attackerSite(action: string, fields: Record<string, string>): Promise<{ url: string; close: () => Promise<void> }> {
  const attribute = (s: string) => s.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');
  const inputs = Object.entries(fields)
    .map(([name, value]) => `<input type="hidden" name="${attribute(name)}" value="${attribute(value)}">`)
    .join('');
  const body = `<!doctype html><form method="post" action="${attribute(action)}">${inputs}</form><script>document.forms[0].submit()</script>`;
  const server: Server = createServer((_req, res) => res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' }).end(body));
  await new Promise<void>((res) => server.listen(0, '127.0.0.1', () => res()));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
    close: () => new Promise<void>((res) => server.close(() => res())),
  };
}

/** The little of an element the tests read in the page: the project compiles without the DOM library. */
interface PageElement {
  ownerDocument: { defaultView: { getComputedStyle(element: PageElement): { outlineStyle: string; outlineWidth: string } } | null };
}

describe('console accessibility in Chromium', () => {
  it('labels every form control on every page', async () => {
    const other = await fixtures.user();
    const { page } = await signedInPerson(['manage-users']);
    const unlabelled: string[] = [];
    let controls = 0;
    const check = async () => {
      for (const control of await page.locator('input:not([type=hidden]), select').all()) {
        controls += 1;
        const [id, ariaLabel] = await Promise.all([control.getAttribute('id'), control.getAttribute('aria-label')]);
        const labelled = ariaLabel !== null || (id !== null && (await page.locator(`label[for="${id}"]`).count()) === 1);
        if (!labelled) unlabelled.push(`${new URL(page.url()).pathname}: ${id ?? (await control.getAttribute('name'))}`);
      }
    };
    for (const path of ['/', '/tokens/new?type=project', '/passkeys', '/admin/users', `/admin/users/${other}`, '/enrol']) {
      await page.goto(consoleUrl(path));
      if (path === '/passkeys') await screenshot(page, 'passkeys');
      await check();
    }
    await page.goto(consoleUrl('/tokens/new?type=project'));
    await fillProjectToken(page, 'Labelled');
    await page.getByRole('button', { name: 'Issue token' }).click();
    await page.getByRole('heading', { name: 'Token issued' }).waitFor();
    await check();
    expect(controls).toBeGreaterThan(20);
    expect(unlabelled).toEqual([]);
  });

  it('draws a visible outline around the button keyboard focus reaches', async () => {
    const { page } = await newPage();
    await page.goto(consoleUrl('/sign-in'));
    const button = page.locator('button:focus');
    for (let presses = 0; presses < 5 && (await button.count()) === 0; presses++) await page.keyboard.press('Tab');
    const focused = await button.evaluate((el: PageElement) => {
      const style = el.ownerDocument.defaultView!.getComputedStyle(el);
      return { outline: style.outlineStyle, width: Number.parseFloat(style.outlineWidth) };
    });
    expect(focused.outline).toBe('solid');
    expect(focused.width).toBeGreaterThanOrEqual(2);
  });
});

const REDOCLY_LOGO = 'https://cdn.redoc.ly/redoc/logo-mini.svg';

describe('console API reference in Chromium', () => {
  it('renders the OpenAPI document with the self-hosted Redoc, within the page policy', { timeout: 120_000 }, async () => {
    const { page } = await newPage();
    const errors: string[] = [];
    page.on('console', (message) => {
      if (message.type() === 'error') errors.push(message.text());
    });
    page.on('pageerror', (error) => errors.push(error.message));
    await page.goto(consoleUrl('/reference'));
    // Redoc lays out every operation in one page before it draws the first: about 5 s of one core alone,
    // and in a full run beside the API files on two cores it once took longer than playwright's 30 s default.
    await page.getByRole('heading', { name: listProjects.summary }).waitFor({ timeout: 100_000 });
    await screenshot(page, 'reference', { fullPage: false });
    // Redoc always draws its "API docs by Redocly" link with a logo from its CDN; the policy keeps it out, as it should, and Redoc drops the image.
    expect(errors.filter((e) => !e.includes(REDOCLY_LOGO))).toEqual([]);
  });
});
