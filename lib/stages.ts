/**
 * The names a deployed stage is known by. The CDK app gives them and the operator CLI looks the
 * stage up by them, so both read them from here rather than each spelling them.
 */
export const DEFAULT_STAGE = 'dev';

/**
 * Short and lower case: the stage goes into stack, API, API Gateway stage, alarm and metric names,
 * and this is what all their alphabets and length limits allow.
 */
const STAGE_PATTERN = /^[a-z][a-z0-9-]{0,15}$/;

export const isStageName = (name: unknown): name is string => typeof name === 'string' && STAGE_PATTERN.test(name);

/** The refusal of a name that is not one, for the CDK app and the CLI to give in their own terms. */
export const notAStageName = (name: unknown): string => `stage ${JSON.stringify(name)} is not a stage name: it must match ${STAGE_PATTERN.source}`;

export type StackPart = 'Data' | 'Workers' | 'Api';

export const stackName = (stage: string, part: StackPart): string => `AssessmentOps-${stage}-${part}`;

/** The settings the data stack outputs for the operator CLI; the workers stack outputs each queue's URL variable. */
export const DATA_STACK_SETTINGS = ['TABLE_NAME', 'BUCKET_NAME', 'TOKEN_HASH_SECRET_ARN'] as const;

/**
 * The output key of a stack output that carries a setting: the setting's name in Pascal case
 * (TOKEN_HASH_SECRET_ARN is TokenHashSecretArn), since output keys are alphanumeric.
 */
export function outputKeyOf(setting: string): string {
  return setting
    .toLowerCase()
    .split('_')
    .map((word) => word.charAt(0).toUpperCase() + word.slice(1))
    .join('');
}
