import { spawnSync } from 'node:child_process';
import { inject } from 'vitest';
import { useTestServices } from './services.js';

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
  json: () => any;
}

/** The operator CLI as an operator runs it (compiled once per run by cli-build.ts), in a child process on this test file's table and token-hash secret. */
export async function operatorCli(): Promise<(...args: string[]) => CliResult> {
  const { tableName, secret } = await useTestServices();
  const env = { ...process.env, DYNAMODB_ENDPOINT: inject('dynamodbEndpoint'), TABLE_NAME: tableName, TOKEN_HASH_SECRET: secret } as Record<string, string>;
  const cli = inject('operatorCliPath');
  return (...args) => {
    const out = spawnSync('node', [cli, ...args], { encoding: 'utf8', env, timeout: 30_000 });
    return { code: out.status, stdout: out.stdout.trim(), stderr: out.stderr.trim(), json: () => JSON.parse(out.stdout) };
  };
}
