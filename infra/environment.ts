import type * as z from 'zod';
import type { Construct } from 'constructs';
import { SETTINGS } from '../lib/config.js';

type SettingName = keyof typeof SETTINGS;

/**
 * The settings a deployment may not tune: the stacks wire them (names, ARNs, the AWS-only
 * scanner, the region Lambda sets itself), or only the local runtime and the operator CLI read
 * them. Every other setting is a product setting (budgets, lifetimes, licence terms) and reaches
 * the group functions, so a setting added to lib/config.ts is deployable without touching infra/.
 */
const NOT_TUNABLE: ReadonlySet<SettingName> = new Set<SettingName>([
  'TABLE_NAME',
  'BUCKET_NAME',
  'TOKEN_HASH_SECRET',
  'TOKEN_HASH_SECRET_ARN',
  'MALWARE_SCANNER',
  'AWS_REGION',
  'DYNAMODB_ENDPOINT',
  'DYNAMODB_LOCAL_DATABASE',
  'S3_ENDPOINT',
  'SQS_ENDPOINT',
  'PORT',
  'DATA_DIR',
  'JAVA_HOME',
  // The stage's public endpoint, wired by the API stack for the console and the request functions.
  'CONSOLE_ORIGIN',
  'CONSOLE_RP_ID',
  'CONSOLE_BASE_PATH',
  // A diagnostic switch changed on one function when needed, not a deployment-wide term.
  'LOG_LEVEL',
]);

/** What every function that touches files runs with on AWS, whatever the local default is. */
export const AWS_SETTINGS = { MALWARE_SCANNER: 'guardduty' } as const satisfies { MALWARE_SCANNER: z.output<(typeof SETTINGS)['MALWARE_SCANNER']['schema']> };

export function tunableSettingNames(): SettingName[] {
  return (Object.keys(SETTINGS) as SettingName[]).filter((name) => !NOT_TUNABLE.has(name));
}

/**
 * Each tunable setting as a function environment variable: its schema default unless the CDK
 * context (`cdk deploy -c NAME=value`) overrides it. The value is validated here, at synth, with
 * the same schema the functions use, so that a bad override never reaches a deployment. A list
 * setting travels in its input form (comma-separated), which is what the functions parse.
 */
export function tunableSettings(scope: Construct): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of tunableSettingNames()) {
    const { schema } = SETTINGS[name];
    const raw: unknown = scope.node.tryGetContext(name);
    const parsed = schema.safeParse(raw === undefined || raw === null ? undefined : String(raw));
    if (!parsed.success) throw new Error(`CDK context ${name}=${String(raw)} is not a valid value for this setting`);
    // A setting without a default (the control workflow) stays unset unless the context sets it.
    if (parsed.data === undefined) continue;
    out[name] = Array.isArray(parsed.data) ? parsed.data.join(',') : String(parsed.data);
  }
  return out;
}
