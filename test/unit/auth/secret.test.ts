import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { mockClient } from 'aws-sdk-client-mock';
import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { resetSettings } from '../../../lib/config.js';
import { resetTokenHashSecret, tokenHashSecret } from '../../../lib/auth/secret.js';

const secrets = mockClient(SecretsManagerClient);
const ARN = 'arn:aws:secretsmanager:ap-southeast-2:123456789012:secret:token-hash';
const KEY = 'k'.repeat(48);

beforeEach(() => {
  secrets.reset();
  resetTokenHashSecret();
});
afterEach(() => {
  vi.unstubAllEnvs();
  resetSettings();
  resetTokenHashSecret();
});

function configure(env: Record<string, string>) {
  for (const [name, value] of Object.entries(env)) vi.stubEnv(name, value);
  resetSettings();
}

describe('tokenHashSecret', () => {
  it('answers TOKEN_HASH_SECRET when it is set, reading no secret', async () => {
    configure({ TOKEN_HASH_SECRET: KEY, TOKEN_HASH_SECRET_ARN: ARN });
    expect(await tokenHashSecret()).toBe(KEY);
    expect(secrets.commandCalls(GetSecretValueCommand)).toEqual([]);
  });

  it('reads the secret from Secrets Manager once per instance', async () => {
    configure({ TOKEN_HASH_SECRET: '', TOKEN_HASH_SECRET_ARN: ARN });
    secrets.on(GetSecretValueCommand).resolves({ SecretString: KEY });
    expect([await tokenHashSecret(), await tokenHashSecret()]).toEqual([KEY, KEY]);
    expect(secrets.commandCalls(GetSecretValueCommand).map((c) => c.args[0].input)).toEqual([{ SecretId: ARN }]);
  });

  it('refuses a secret shorter than 32 characters', async () => {
    configure({ TOKEN_HASH_SECRET: '', TOKEN_HASH_SECRET_ARN: ARN });
    secrets.on(GetSecretValueCommand).resolves({ SecretString: 'short' });
    await expect(tokenHashSecret()).rejects.toThrow('the token-hash secret is missing or too short');
  });

  it('reads again after a failed read instead of keeping the failure', async () => {
    configure({ TOKEN_HASH_SECRET: '', TOKEN_HASH_SECRET_ARN: ARN });
    secrets.on(GetSecretValueCommand).rejectsOnce(new Error('throttled')).resolves({ SecretString: KEY });
    await expect(tokenHashSecret()).rejects.toThrow('throttled');
    expect(await tokenHashSecret()).toBe(KEY);
  });

  it('fails clearly when neither setting is given', async () => {
    configure({ TOKEN_HASH_SECRET: '', TOKEN_HASH_SECRET_ARN: '' });
    await expect(tokenHashSecret()).rejects.toThrow('TOKEN_HASH_SECRET or TOKEN_HASH_SECRET_ARN must be set');
  });
});
