import { isIP } from 'node:net';
import * as z from 'zod';
import { CLASSIFICATION_CODES } from './domain/classifications.js';
import { DEFAULT_WORKFLOW, isWorkflowJson, parseWorkflow, type WorkflowConfig } from './domain/workflow.js';

/**
 * Every setting the product reads from its environment, with its default. docs/configuration.md's
 * table is generated from this list (`npm run docs`) and a test keeps the two equal.
 */
const positive = (fallback: number) => z.coerce.number().int().positive().default(fallback);

export const SETTINGS = {
  API_INGRESS_RATE_LIMIT_PER_MINUTE: { schema: positive(600), doc: 'Requests per minute per client IP, before authentication.' },
  API_READ_RATE_LIMIT_PER_MINUTE: { schema: positive(120), doc: 'Reads per minute per credential.' },
  API_ACTOR_READ_RATE_LIMIT_PER_MINUTE: { schema: positive(240), doc: 'Reads per minute per actor (user).' },
  API_ORGANISATION_READ_RATE_LIMIT_PER_MINUTE: { schema: positive(1200), doc: 'Reads per minute per organisation.' },
  API_MUTATION_RATE_LIMIT_PER_MINUTE: { schema: positive(30), doc: 'Mutations per minute per credential.' },
  API_ACTOR_MUTATION_RATE_LIMIT_PER_MINUTE: { schema: positive(60), doc: 'Mutations per minute per actor (user).' },
  API_ORGANISATION_MUTATION_RATE_LIMIT_PER_MINUTE: { schema: positive(300), doc: 'Mutations per minute per organisation.' },
  TOKEN_PROJECT_READ_ONLY_MAX_DAYS: { schema: positive(90), doc: 'Maximum lifetime of a read-only project credential.' },
  TOKEN_PROJECT_MUTATION_MAX_DAYS: { schema: positive(30), doc: 'Maximum lifetime of a mutation-enabled project credential.' },
  TOKEN_ORGANISATION_MAX_DAYS: { schema: positive(30), doc: 'Maximum lifetime of an organisation credential.' },
  TOKEN_ADMINISTRATION_MAX_DAYS: { schema: positive(30), doc: 'Maximum lifetime of an Administration credential.' },
  ORGANISATION_LICENCE_LIMIT: { schema: positive(100), doc: 'Maximum number of organisations the installation may hold.' },
  SYSTEM_LICENCE_LIMIT: { schema: positive(25), doc: 'Maximum number of systems one organisation may hold.' },
  LICENSED_CLASSIFICATIONS: {
    schema: z
      .string()
      .default('NC,OS,P')
      .transform((v) => v.split(',').map((c) => c.trim()))
      .pipe(z.array(z.enum(CLASSIFICATION_CODES)).min(1)),
    doc: 'Classifications a new organisation is licensed for (comma-separated from NC, OS, P, S, TS).',
  },
  GENERATION_LEASE_SECONDS: {
    schema: positive(600),
    doc: 'How long a requested document generation holds the project lease while it waits for a worker; a running worker holds it for 2 minutes (or this, if shorter) from its last renewal, so one that crashes blocks new generations of its project for that long at most.',
  },
  MALWARE_SCANNER: {
    schema: z.enum(['local', 'guardduty']).default('local'),
    doc: 'Where malware verdicts come from: the built-in scanner (EICAR signature; local runtime and tests) or GuardDuty Malware Protection for S3 (set by CDK).',
  },
  CONTROL_WORKFLOW: {
    schema: z.string().refine(isWorkflowJson, 'must be a control workflow in JSON').optional(),
    doc: 'The control workflow as JSON (states, transitions with permissions, comment rule, setting condition and gates); the default of spec/operations.md when unset.',
  },
  TABLE_NAME: { schema: z.string().min(1).default('assessment-operations'), doc: 'The single DynamoDB table.' },
  BUCKET_NAME: { schema: z.string().min(1).default('assessment-operations-files'), doc: 'The S3 bucket for files.' },
  TOKEN_HASH_SECRET: {
    schema: z.string().min(32).optional(),
    doc: 'Server secret keying the token hashes (HMAC-SHA-256). Locally generated once into DATA_DIR; on AWS read from Secrets Manager via TOKEN_HASH_SECRET_ARN.',
  },
  TOKEN_HASH_SECRET_ARN: { schema: z.string().optional(), doc: 'Secrets Manager ARN of the token-hash secret (AWS only).' },
  DYNAMODB_ENDPOINT: { schema: z.string().url().optional(), doc: 'DynamoDB endpoint override (set by the local runtime).' },
  DYNAMODB_LOCAL_DATABASE: {
    schema: z
      .string()
      .regex(/^[A-Za-z0-9]{1,64}$/, 'must be 1 to 64 letters and digits')
      .default('local'),
    doc: "The access key presented to DynamoDB Local, which names the database it works in when DynamoDB Local runs without -sharedDb (as the tests' does: each test file has a database of its own, so that reading one file's stream does not wade through every other file's records).",
  },
  S3_ENDPOINT: { schema: z.string().url().optional(), doc: 'S3 endpoint override (set by the local runtime).' },
  SQS_ENDPOINT: { schema: z.string().url().optional(), doc: 'SQS endpoint override (set by the local runtime).' },
  AWS_REGION: { schema: z.string().default('ap-southeast-2'), doc: 'AWS region.' },
  PORT: { schema: positive(3000), doc: 'Local runtime: HTTP port.' },
  DATA_DIR: { schema: z.string().default('.data'), doc: 'Local runtime and operator CLI: where DynamoDB Local and the S3 emulator keep their data.' },
  JAVA_HOME: { schema: z.string().optional(), doc: 'Local runtime: the Java 17+ installation for DynamoDB Local; `java` on the PATH when unset.' },
  CONSOLE_ORIGIN: {
    schema: z.string().url().optional(),
    doc: "The console's exact origin, which WebAuthn ceremonies are verified against and generated documents link to the API under (set by CDK from the stage's domain); locally http://localhost:PORT.",
  },
  CONSOLE_RP_ID: { schema: z.string().min(1).optional(), doc: 'The WebAuthn relying-party id (set by CDK); the host of CONSOLE_ORIGIN when unset.' },
  CONSOLE_BASE_PATH: {
    schema: z
      .string()
      .regex(/^(\/[a-z0-9-]+)?$/)
      .default(''),
    doc: 'Path prefix in front of /console and /api/v1 (the API Gateway stage, as `/dev`, when no custom domain is set; set by CDK).',
  },
  CONSOLE_SESSION_IDLE_MINUTES: { schema: positive(30), doc: 'A console session ends after this long without a request.' },
  CONSOLE_SESSION_ABSOLUTE_HOURS: { schema: positive(12), doc: 'A console session ends this long after sign-in, whatever the activity.' },
  CONSOLE_CONFIRMATION_SECONDS: {
    schema: positive(300),
    doc: 'How recent a passkey assertion must be for token issuance and revocation, passkey changes and user or access changes.',
  },
  CONSOLE_SIGN_IN_RATE_LIMIT_PER_MINUTE: { schema: positive(10), doc: 'Sign-in and enrolment attempts per minute per client IP.' },
  ENROLMENT_LINK_HOURS: { schema: positive(24), doc: 'How long a one-time enrolment link stays valid.' },
  TEST_ONLY_ALLOWED_REPOSITORY_ADDRESSES: {
    schema: z
      .string()
      .default('')
      .transform((v) =>
        v
          .split(',')
          .map((a) => a.trim())
          .filter((a) => a !== ''),
      )
      .pipe(z.array(z.string().refine((a) => isIP(a) !== 0, 'must be IP addresses, comma-separated'))),
    doc: 'Tests only, never in an installation: IP addresses (each exactly, comma-separated) that repository connections may reach although the address rule refuses them, as the GitHub stub on 127.0.0.1.',
  },
  LOG_LEVEL: { schema: z.enum(['DEBUG', 'INFO', 'WARN', 'ERROR']).default('INFO'), doc: 'Structured log level (Powertools logger).' },
} as const;

type Settings = { [K in keyof typeof SETTINGS]: z.output<(typeof SETTINGS)[K]['schema']> };

let cached: Settings | undefined;

export function settings(): Settings {
  if (!cached) cached = readSettings(process.env);
  return cached;
}

export function readSettings(env: Record<string, string | undefined>): Settings {
  const out: Record<string, unknown> = {};
  for (const [name, { schema }] of Object.entries(SETTINGS)) {
    const raw = env[name];
    const parsed = schema.safeParse(raw === '' ? undefined : raw);
    if (!parsed.success) throw new Error(`Setting ${name} is invalid: ${parsed.error.issues[0]?.message ?? 'bad value'}`);
    out[name] = parsed.data;
  }
  return out as Settings;
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
