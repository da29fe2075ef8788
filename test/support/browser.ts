import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';

/**
 * Browser tests drive Debian's Chromium (installed by .ci/run) through playwright-core, which
 * downloads no browser of its own. Each launch gets a new empty profile; the flags keep Chromium
 * from reaching the network for updates, sync or field trials while the tests run.
 */
export const CHROMIUM = '/usr/bin/chromium';

export const launchBrowser = (): Promise<Browser> =>
  chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });

/**
 * A page in a context of its own (its own cookies) with a virtual platform authenticator: it keeps
 * discoverable credentials, verifies the user and answers prompts without a person, so the
 * console's passkey ceremonies run unchanged. Its credentials live as long as the page.
 */
export async function passkeyPage(browser: Browser): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext();
  const page = await context.newPage();
  const cdp = await context.newCDPSession(page);
  await cdp.send('WebAuthn.enable');
  await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: {
      protocol: 'ctap2',
      transport: 'internal',
      hasResidentKey: true,
      hasUserVerification: true,
      isUserVerified: true,
      automaticPresenceSimulation: true,
    },
  });
  return { context, page };
}

/** Screenshots are for people to look at after a run; test-results/ is not committed. */
const SCREENSHOTS = fileURLToPath(new URL('../../test-results/console/', import.meta.url));

/** The whole page, unless it is as long as the API reference (hundreds of screens): then what a person sees first. */
export async function screenshot(page: Page, name: string, options: { fullPage?: boolean } = {}): Promise<void> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: `${SCREENSHOTS}${name}.png`, fullPage: options.fullPage ?? true });
}
