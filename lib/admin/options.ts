import type { parseArgs } from 'node:util';

/** Bad input to the operator CLI: one line on stderr, exit code 2. */
export class UsageError extends Error {
  override readonly name: string = 'UsageError';
}

export const OPTIONS = {
  email: { type: 'string' },
  name: { type: 'string' },
  'super-user': { type: 'boolean' },
  user: { type: 'string' },
  installation: { type: 'boolean' },
  organisation: { type: 'string' },
  project: { type: 'string' },
  permissions: { type: 'string' },
  type: { type: 'string' },
  abilities: { type: 'string' },
  'read-only': { type: 'string' },
  'expires-at': { type: 'string' },
  id: { type: 'string' },
  path: { type: 'string' },
  title: { type: 'string' },
  control: { type: 'string' },
  assignee: { type: 'string' },
  provider: { type: 'string' },
  url: { type: 'string' },
  'token-file': { type: 'string' },
  aws: { type: 'boolean' },
  stage: { type: 'string' },
  region: { type: 'string' },
  help: { type: 'boolean' },
} as const;

export type Values = ReturnType<typeof parseArgs<{ options: typeof OPTIONS; allowPositionals: true }>>['values'];

export function required(values: Values, name: keyof Values): string {
  const v = values[name];
  if (typeof v !== 'string' || v.trim() === '') throw new UsageError(`--${name} is required`);
  return v;
}

export const list = (csv: string) =>
  csv
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);

/** A command of the CLI: what it prints, from the parsed options and the time of the run. */
export type Command = (values: Values, now: Date, command: string) => Promise<unknown>;

/**
 * The commands of one first word (`user`, `token` ...), in a module of their own that the CLI
 * imports only when one of them is run, with the errors of theirs that are the operator's to fix
 * (one line on stderr, exit code 2; UsageError always is).
 */
export interface CommandGroup {
  readonly commands: Readonly<Record<string, Command>>;
  readonly refusals: readonly (abstract new (...args: never[]) => Error)[];
}
