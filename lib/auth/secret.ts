import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { settings } from '../config.js';

let cached: Promise<string> | undefined;

/**
 * The server key of the token hashes. Locally and in tests it comes from TOKEN_HASH_SECRET
 * (the local runtime generates one into DATA_DIR); on AWS from Secrets Manager, read once per
 * function instance.
 */
export function tokenHashSecret(): Promise<string> {
  cached ??= load().catch((error) => {
    cached = undefined;
    throw error;
  });
  return cached;
}

async function load(): Promise<string> {
  const { TOKEN_HASH_SECRET, TOKEN_HASH_SECRET_ARN, AWS_REGION } = settings();
  if (TOKEN_HASH_SECRET) return TOKEN_HASH_SECRET;
  if (!TOKEN_HASH_SECRET_ARN) throw new Error('TOKEN_HASH_SECRET or TOKEN_HASH_SECRET_ARN must be set');
  const client = new SecretsManagerClient({ region: AWS_REGION });
  const out = await client.send(new GetSecretValueCommand({ SecretId: TOKEN_HASH_SECRET_ARN }));
  if (!out.SecretString || out.SecretString.length < 32) throw new Error('the token-hash secret is missing or too short');
  return out.SecretString;
}

export function resetTokenHashSecret(): void {
  cached = undefined;
}
