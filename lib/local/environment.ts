import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { resetSettings } from '../config.js';
import { resetTokenHashSecret } from '../auth/secret.js';
import { resetDdbClient } from '../store/client.js';
import { resetS3Client } from '../files/s3.js';
import { resetSqsClient } from '../queues/sqs.js';

/** Where a running `npm start` says its emulators are, so that the operator CLI can share them. */
export interface RuntimeInfo {
  pid: number;
  dynamodb: string;
  s3: string;
  sqs: string;
  port: number;
}

const runtimePath = (dataDir: string) => join(dataDir, 'runtime.json');

export function writeRuntimeInfo(dataDir: string, info: RuntimeInfo): void {
  writeFileSync(runtimePath(dataDir), JSON.stringify(info, null, 2));
}

export function clearRuntimeInfo(dataDir: string): void {
  rmSync(runtimePath(dataDir), { force: true });
}

/** The running runtime's endpoints, when its process is still alive. */
export function readRuntimeInfo(dataDir: string): RuntimeInfo | undefined {
  try {
    const info = JSON.parse(readFileSync(runtimePath(dataDir), 'utf8')) as RuntimeInfo;
    process.kill(info.pid, 0);
    return info;
  } catch {
    return undefined;
  }
}

/** The token-hash key of this data directory, generated once and kept beside the data. */
export function localTokenSecret(dataDir: string): string {
  mkdirSync(dataDir, { recursive: true });
  const path = join(dataDir, 'token-hash-secret');
  if (!existsSync(path)) writeFileSync(path, randomBytes(48).toString('base64url'), { mode: 0o600 });
  return readFileSync(path, 'utf8').trim();
}

/** Points this process's settings and clients at the local emulators. */
export function useLocalServices(env: { dynamodb: string; s3?: string; sqs?: string; secret: string; tableName?: string }): void {
  process.env.DYNAMODB_ENDPOINT = env.dynamodb;
  if (env.s3) process.env.S3_ENDPOINT = env.s3;
  if (env.sqs) process.env.SQS_ENDPOINT = env.sqs;
  process.env.TOKEN_HASH_SECRET = env.secret;
  if (env.tableName) process.env.TABLE_NAME = env.tableName;
  process.env.AWS_ACCESS_KEY_ID ??= 'local';
  process.env.AWS_SECRET_ACCESS_KEY ??= 'local';
  rereadEnvironment();
}

/** Forgets what this process built from its environment (settings, clients, the token-hash key), for its next use to read the environment as it is now. */
export function rereadEnvironment(): void {
  resetSettings();
  resetDdbClient();
  resetS3Client();
  resetSqsClient();
  resetTokenHashSecret();
}
