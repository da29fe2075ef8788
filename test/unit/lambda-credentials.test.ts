import { afterEach, describe, expect, it } from 'vitest';
import { defaultProvider } from '../../lib/lambda-credentials.js';

const NAMES = ['AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY', 'AWS_SESSION_TOKEN', 'AWS_CREDENTIAL_EXPIRATION'] as const;
const saved = Object.fromEntries(NAMES.map((name) => [name, process.env[name]]));

function environment(values: Partial<Record<(typeof NAMES)[number], string>>): void {
  for (const name of NAMES) {
    if (values[name] === undefined) delete process.env[name];
    else process.env[name] = values[name];
  }
}

afterEach(() => environment(saved));

describe("the bundles' credential provider", () => {
  it('answers the role credentials Lambda puts in the environment', async () => {
    environment({ AWS_ACCESS_KEY_ID: 'AKIA', AWS_SECRET_ACCESS_KEY: 'secret', AWS_SESSION_TOKEN: 'token', AWS_CREDENTIAL_EXPIRATION: '2026-11-23T18:00:00Z' });
    expect(await defaultProvider()()).toEqual({
      accessKeyId: 'AKIA',
      secretAccessKey: 'secret',
      sessionToken: 'token',
      expiration: new Date('2026-11-23T18:00:00Z'),
    });
  });

  it('answers long-term keys without a session token', async () => {
    environment({ AWS_ACCESS_KEY_ID: 'AKIA', AWS_SECRET_ACCESS_KEY: 'secret' });
    expect(await defaultProvider()()).toEqual({ accessKeyId: 'AKIA', secretAccessKey: 'secret' });
  });

  it('refuses to sign without credentials in the environment', async () => {
    environment({});
    await expect(defaultProvider()()).rejects.toThrow(/No AWS credentials/);
  });
});
