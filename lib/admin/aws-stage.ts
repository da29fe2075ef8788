import { CloudFormationClient, DescribeStacksCommand, type Stack } from '@aws-sdk/client-cloudformation';
import { resetSettings, SETTINGS } from '../config.js';
import { QUEUES, queueUrlVariable, type QueueName } from '../queues/queues.js';
import { DATA_STACK_SETTINGS, isStageName, notAStageName, outputKeyOf, stackName, type StackPart } from '../stages.js';
import { UsageError } from './options.js';

/** A stage the CLI cannot use as asked (malformed, not deployed, an older version): the operator's to fix, exit code 2. */
export class AwsStageError extends UsageError {
  override readonly name = 'AwsStageError';
}

/** Settings that would point the CLI at emulators, or at a token-hash key other than the stage's. */
const LOCAL_ONLY = ['DYNAMODB_ENDPOINT', 'S3_ENDPOINT', 'SQS_ENDPOINT', 'TOKEN_HASH_SECRET'] as const;

/** The settings the CLI needs from each stack, each read from the output named after it. */
const STACK_SETTINGS: readonly (readonly [StackPart, readonly string[]])[] = [
  ['Data', DATA_STACK_SETTINGS],
  ['Workers', (Object.keys(QUEUES) as QueueName[]).map(queueUrlVariable)],
];

/**
 * The settings the functions of a deployed stage run with (table, bucket, token-hash secret, queue
 * URLs, region), from the outputs of its stacks in the region `--region` names, else the one the
 * SDK's chain finds (AWS_REGION, the profile), else the product's default region.
 */
export async function awsStageSettings(stage: string, region: string | undefined): Promise<Record<string, string>> {
  if (!isStageName(stage)) throw new AwsStageError(`--stage: ${notAStageName(stage)}`);
  const client = new CloudFormationClient({ region: region ?? (await chainRegion()) });
  const where = await client.config.region();
  const found = await Promise.all(
    STACK_SETTINGS.map(async ([part, settings]) => {
      const stack = await describeStack(client, stackName(stage, part), where);
      return settings.map((setting) => [setting, outputOf(stack, outputKeyOf(setting), where)] as const);
    }),
  );
  const console = consoleSettings(outputOf(await describeStack(client, stackName(stage, 'Api'), where), CONSOLE_URL_OUTPUT, where));
  return { AWS_REGION: where, ...Object.fromEntries(found.flat()), ...console };
}

/** The API stack's output naming the console, which enrolment links point at. */
export const CONSOLE_URL_OUTPUT = 'ConsoleUrl';

/** `https://host/<base>/console/` read back into the origin and base path the console is configured with. */
function consoleSettings(url: string): Record<string, string> {
  const parsed = new URL(url);
  return { CONSOLE_ORIGIN: parsed.origin, CONSOLE_BASE_PATH: parsed.pathname.replace(/\/console\/$/, '') };
}

async function chainRegion(): Promise<string> {
  try {
    return await new CloudFormationClient({}).config.region();
  } catch {
    return SETTINGS.AWS_REGION.schema.parse(undefined);
  }
}

async function describeStack(client: CloudFormationClient, name: string, region: string): Promise<Stack> {
  try {
    const stack = (await client.send(new DescribeStacksCommand({ StackName: name }))).Stacks?.[0];
    if (stack) return stack;
  } catch (error) {
    // CloudFormation's answer for a stack name it does not know; any other failure (credentials, access) stays itself.
    if (!(error instanceof Error && error.name === 'ValidationError' && /does not exist/.test(error.message))) throw error;
  }
  throw new AwsStageError(`no stack ${name} in ${region}: deploy the stage first`);
}

function outputOf(stack: Stack, key: string, region: string): string {
  const value = stack.Outputs?.find((output) => output.OutputKey === key)?.OutputValue;
  if (!value) throw new AwsStageError(`stack ${stack.StackName} in ${region} has no output ${key}: deploy this version of the stage`);
  return value;
}

/**
 * Points this process at the stage, as its functions are configured. Settings are read once and
 * cached (lib/config.ts), so the cache is dropped here in case anything read them before.
 */
export async function useAwsStage(stage: string, region: string | undefined): Promise<void> {
  const local = LOCAL_ONLY.filter((name) => process.env[name]);
  if (local.length) throw new AwsStageError(`--aws with ${local.join(', ')} set would not use the stage's own services and key: unset it`);
  Object.assign(process.env, await awsStageSettings(stage, region));
  resetSettings();
}
