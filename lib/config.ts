import { isIP } from 'node:net';
import * as z from 'zod';
import { CLASSIFICATION_CODES } from './domain/classifications.js';
import { once } from './domain/validation.js';
import { DEFAULT_WORKFLOW, isWorkflowJson, parseWorkflow, type WorkflowConfig } from './domain/workflow.js';

const positive = (fallback: number) => z.coerce.number().int().positive().default(fallback);

/**
 * A setting: its schema, built at its first use (every function imports this module, and building
 * all of them cost each cold start 6 to 7 ms of CPU), and its documentation.
 */
function setting<S extends z.ZodType>(build: () => S, doc: string): { readonly schema: S; readonly doc: string } {
  const schema = once(build);
  return {
    get schema() {
      return schema();
    },
    doc,
  };
}

/**
 * Every setting the product reads from its environment, with its default. docs/configuration.md's
 * table is generated from this list (`npm run docs`) and a test keeps the two equal.
 */
export const SETTINGS = {
  API_INGRESS_RATE_LIMIT_PER_MINUTE: setting(() => positive(600), 'Requests per minute per client IP, before authentication.'),
  API_READ_RATE_LIMIT_PER_MINUTE: setting(() => positive(120), 'Reads per minute per credential.'),
  API_ACTOR_READ_RATE_LIMIT_PER_MINUTE: setting(() => positive(240), 'Reads per minute per actor (user).'),
  API_ORGANISATION_READ_RATE_LIMIT_PER_MINUTE: setting(() => positive(1200), 'Reads per minute per organisation.'),
  API_MUTATION_RATE_LIMIT_PER_MINUTE: setting(() => positive(30), 'Mutations per minute per credential.'),
  API_ACTOR_MUTATION_RATE_LIMIT_PER_MINUTE: setting(() => positive(60), 'Mutations per minute per actor (user).'),
  API_ORGANISATION_MUTATION_RATE_LIMIT_PER_MINUTE: setting(() => positive(300), 'Mutations per minute per organisation.'),
  TOKEN_PROJECT_READ_ONLY_MAX_DAYS: setting(() => positive(90), 'Maximum lifetime of a read-only project credential.'),
  TOKEN_PROJECT_MUTATION_MAX_DAYS: setting(() => positive(30), 'Maximum lifetime of a mutation-enabled project credential.'),
  TOKEN_ORGANISATION_MAX_DAYS: setting(() => positive(30), 'Maximum lifetime of an organisation credential.'),
  TOKEN_ADMINISTRATION_MAX_DAYS: setting(() => positive(30), 'Maximum lifetime of an Administration credential.'),
  ORGANISATION_LICENCE_LIMIT: setting(() => positive(100), 'Maximum number of organisations the installation may hold.'),
  SYSTEM_LICENCE_LIMIT: setting(() => positive(25), 'Maximum number of systems one organisation may hold.'),
  LICENSED_CLASSIFICATIONS: setting(
    () =>
      z
        .string()
        .default('NC,OS,P')
        .transform((v) => v.split(',').map((c) => c.trim()))
        .pipe(z.array(z.enum(CLASSIFICATION_CODES)).min(1)),
    'Classifications a new organisation is licensed for (comma-separated from NC, OS, P, S, TS).',
  ),
  GENERATION_LEASE_SECONDS: setting(
    () => positive(600),
    'How long a requested document generation holds the project lease while it waits for a worker; a running worker holds it for 2 minutes (or this, if shorter) from its last renewal, so one that crashes blocks new generations of its project for that long at most.',
  ),
  MALWARE_SCANNER: setting(
    () => z.enum(['local', 'guardduty']).default('local'),
    'Where malware verdicts come from: the built-in scanner (EICAR signature; local runtime and tests) or GuardDuty Malware Protection for S3 (set by CDK).',
  ),
  CONTROL_WORKFLOW: setting(
    () => z.string().refine(isWorkflowJson, 'must be a control workflow in JSON').optional(),
    'The control workflow as JSON (states, transitions with permissions, comment rule, setting condition and gates); the default of spec/operations.md when unset.',
  ),
  TABLE_NAME: setting(() => z.string().min(1).default('assessment-operations'), 'The single DynamoDB table.'),
  BUCKET_NAME: setting(() => z.string().min(1).default('assessment-operations-files'), 'The S3 bucket for files.'),
  TOKEN_HASH_SECRET: setting(
    () => z.string().min(32).optional(),
    'Server secret keying the token hashes (HMAC-SHA-256). Locally generated once into DATA_DIR; on AWS read from Secrets Manager via TOKEN_HASH_SECRET_ARN.',
  ),
  TOKEN_HASH_SECRET_ARN: setting(() => z.string().optional(), 'Secrets Manager ARN of the token-hash secret (AWS only).'),
  DYNAMODB_ENDPOINT: setting(() => z.string().url().optional(), 'DynamoDB endpoint override (set by the local runtime).'),
  DYNAMODB_LOCAL_DATABASE: setting(
    () =>
      z
        .string()
        .regex(/^[A-Za-z0-9]{1,64}$/, 'must be 1 to 64 letters and digits')
        .default('local'),
    "The access key presented to DynamoDB Local, which names the database it works in when DynamoDB Local runs without -sharedDb (as the tests' does: each test file has a database of its own, so that reading one file's stream does not wade through every other file's records).",
  ),
  S3_ENDPOINT: setting(() => z.string().url().optional(), 'S3 endpoint override (set by the local runtime).'),
  SQS_ENDPOINT: setting(() => z.string().url().optional(), 'SQS endpoint override (set by the local runtime).'),
  AWS_REGION: setting(() => z.string().default('ap-southeast-2'), 'AWS region.'),
  PORT: setting(() => positive(3000), 'Local runtime: HTTP port.'),
  DATA_DIR: setting(() => z.string().default('.data'), 'Local runtime and operator CLI: where DynamoDB Local and the S3 emulator keep their data.'),
  JAVA_HOME: setting(() => z.string().optional(), 'Local runtime: the Java 17+ installation for DynamoDB Local; `java` on the PATH when unset.'),
  CONSOLE_ORIGIN: setting(
    () => z.string().url().optional(),
    "The console's exact origin, which WebAuthn ceremonies are verified against and generated documents link to the API under (set by CDK from the stage's domain); locally http://localhost:PORT.",
  ),
  CONSOLE_RP_ID: setting(() => z.string().min(1).optional(), 'The WebAuthn relying-party id (set by CDK); the host of CONSOLE_ORIGIN when unset.'),
  CONSOLE_BASE_PATH: setting(
    () =>
      z
        .string()
        .regex(/^(\/[a-z0-9-]+)?$/)
        .default(''),
    'Path prefix in front of /console and /api/v1 (the API Gateway stage, as `/dev`, when no custom domain is set; set by CDK).',
  ),
  CONSOLE_SESSION_IDLE_MINUTES: setting(() => positive(30), 'A console session ends after this long without a request.'),
  CONSOLE_SESSION_ABSOLUTE_HOURS: setting(() => positive(12), 'A console session ends this long after sign-in, whatever the activity.'),
  CONSOLE_CONFIRMATION_SECONDS: setting(
    () => positive(300),
    'How recent a passkey assertion must be for token issuance and revocation, passkey changes and user or access changes.',
  ),
  CONSOLE_SIGN_IN_RATE_LIMIT_PER_MINUTE: setting(() => positive(10), 'Sign-in and enrolment attempts per minute per client IP.'),
  ENROLMENT_LINK_HOURS: setting(() => positive(24), 'How long a one-time enrolment link stays valid.'),
  TEST_ONLY_ALLOWED_REPOSITORY_ADDRESSES: setting(
    () =>
      z
        .string()
        .default('')
        .transform((v) =>
          v
            .split(',')
            .map((a) => a.trim())
            .filter((a) => a !== ''),
        )
        .pipe(z.array(z.string().refine((a) => isIP(a) !== 0, 'must be IP addresses, comma-separated'))),
    'Tests only, never in an installation: IP addresses (each exactly, comma-separated) that repository connections may reach although the address rule refuses them, as the GitHub stub on 127.0.0.1.',
  ),
  LOG_LEVEL: setting(() => z.enum(['DEBUG', 'INFO', 'WARN', 'ERROR']).default('INFO'), 'Structured log level (Powertools logger).'),
} as const;

type Settings = { [K in keyof typeof SETTINGS]: z.output<(typeof SETTINGS)[K]['schema']> };
type SettingName = keyof typeof SETTINGS;
const NAMES = Object.keys(SETTINGS) as SettingName[];

function readSetting<K extends SettingName>(name: K, raw: string | undefined): Settings[K] {
  const parsed = SETTINGS[name].schema.safeParse(raw === '' ? undefined : raw);
  if (!parsed.success) throw new Error(`Setting ${name} is invalid: ${parsed.error.issues[0]?.message ?? 'bad value'}`);
  return parsed.data as Settings[K];
}

let cached: Settings | undefined;

/**
 * The settings of this process's environment, as it was at the first call. Each is parsed (and its
 * schema built) when it is first read, so that a function pays only for the settings its requests
 * use; an invalid one throws at that read.
 */
export function settings(): Settings {
  if (!cached) {
    const env = { ...process.env };
    const lazy = {} as Settings;
    for (const name of NAMES) {
      Object.defineProperty(lazy, name, {
        enumerable: true,
        configurable: true,
        get: () => {
          const value = readSetting(name, env[name]);
          Object.defineProperty(lazy, name, { value, enumerable: true });
          return value;
        },
      });
    }
    cached = lazy;
  }
  return cached;
}

/** Every setting of an environment, parsed at once: an invalid one throws here. */
export function readSettings(env: Record<string, string | undefined>): Settings {
  return Object.fromEntries(NAMES.map((name) => [name, readSetting(name, env[name])])) as Settings;
}

/** Where browsers and API clients reach the installation: the console's origin, locally http://localhost:PORT, without a trailing slash. */
export const publicOrigin = (s: Pick<Settings, 'CONSOLE_ORIGIN' | 'PORT'> = settings()): string =>
  (s.CONSOLE_ORIGIN ?? `http://localhost:${s.PORT}`).replace(/\/$/, '');

/** The origin and the stage's path prefix: what `/api/v1` and `/console` follow. */
export const publicUrl = (s: Pick<Settings, 'CONSOLE_ORIGIN' | 'PORT' | 'CONSOLE_BASE_PATH'> = settings()): string =>
  `${publicOrigin(s)}${s.CONSOLE_BASE_PATH}`;

let workflow: WorkflowConfig | undefined;

/** The installation's control workflow: CONTROL_WORKFLOW when set (validated with the settings), else the default. */
export function controlWorkflow(): WorkflowConfig {
  if (!workflow) {
    const raw = settings().CONTROL_WORKFLOW;
    workflow = raw ? parseWorkflow(JSON.parse(raw)) : DEFAULT_WORKFLOW;
  }
  return workflow;
}

/** Tests and the local runtime change the environment after import; they call this to re-read it. */
export function resetSettings(): void {
  workflow = undefined;
  cached = undefined;
}
