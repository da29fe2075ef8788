import { afterEach, describe, expect, it, vi } from 'vitest';
import { resetSettings } from '../../../lib/config.js';
import { consoleConfig, consolePath, enrolmentUrl } from '../../../lib/console/config.js';

afterEach(() => {
  vi.unstubAllEnvs();
  resetSettings();
});

function configured(env: Record<string, string>) {
  for (const [name, value] of Object.entries(env)) vi.stubEnv(name, value);
  resetSettings();
  return consoleConfig();
}

describe('consoleConfig', () => {
  it('takes the relying party from the origin and the session lengths from the settings, in milliseconds', () => {
    expect(
      configured({
        CONSOLE_ORIGIN: 'https://assess.example.gov.au/',
        CONSOLE_RP_ID: '',
        CONSOLE_BASE_PATH: '/dev',
        CONSOLE_SESSION_IDLE_MINUTES: '20',
        CONSOLE_SESSION_ABSOLUTE_HOURS: '8',
        CONSOLE_CONFIRMATION_SECONDS: '120',
      }),
    ).toEqual({
      origin: 'https://assess.example.gov.au',
      rpId: 'assess.example.gov.au',
      rpName: 'Assessment Operations',
      basePath: '/dev',
      idleMs: 20 * 60_000,
      absoluteMs: 8 * 3_600_000,
      confirmationMs: 120_000,
    });
  });

  it('takes the relying party id the stage sets over the origin’s host', () => {
    expect(configured({ CONSOLE_ORIGIN: 'https://console.assess.example.gov.au', CONSOLE_RP_ID: 'assess.example.gov.au' }).rpId).toBe('assess.example.gov.au');
  });
});

describe('consolePath', () => {
  it('puts the base path in front of /console', () => {
    expect([consolePath({ basePath: '/dev' }, '/tokens'), consolePath({ basePath: '' })]).toEqual(['/dev/console/tokens', '/console/']);
  });
});

describe('enrolmentUrl', () => {
  it('carries the secret in the fragment, which no server sees', () => {
    expect(enrolmentUrl({ origin: 'https://assess.example.gov.au', basePath: '' }, 's3cret')).toBe('https://assess.example.gov.au/console/enrol#s3cret');
  });
});
