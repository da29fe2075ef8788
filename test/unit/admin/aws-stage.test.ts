import { spawnSync } from 'node:child_process';
import { CloudFormationClient, DescribeStacksCommand, type Output } from '@aws-sdk/client-cloudformation';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, beforeEach, describe, expect, inject, it, vi } from 'vitest';
import { awsStageSettings, AwsStageError, useAwsStage } from '../../../lib/admin/aws-stage.js';
import { resetSettings, settings } from '../../../lib/config.js';
import { QUEUES, queueUrlVariable, type QueueName } from '../../../lib/queues/queues.js';

const REGION = 'ap-southeast-2';
const cloudFormation = mockClient(CloudFormationClient);
const queueNames = Object.keys(QUEUES) as QueueName[];
const queueUrl = (name: QueueName) => `https://sqs.${REGION}.amazonaws.com/123456789012/AssessmentOps-staging-Workers-Queue${name}`;

const DATA_OUTPUTS: Output[] = [
  { OutputKey: 'TableName', OutputValue: 'AssessmentOps-staging-Data-Table1234' },
  { OutputKey: 'BucketName', OutputValue: 'assessmentops-staging-data-filesbucket1234' },
  { OutputKey: 'TokenHashSecretArn', OutputValue: `arn:aws:secretsmanager:${REGION}:123456789012:secret:TokenHashSecret-AbCdEf` },
  { OutputKey: 'ExportsOutputRefTable1234', OutputValue: 'AssessmentOps-staging-Data-Table1234' },
];
const WORKERS_OUTPUTS: Output[] = queueNames.map((name) => ({
  OutputKey: `${name.charAt(0).toUpperCase()}${name.slice(1)}QueueUrl`,
  OutputValue: queueUrl(name),
}));

const API_OUTPUTS: Output[] = [
  { OutputKey: 'ApiUrl', OutputValue: 'https://abc123.execute-api.ap-southeast-2.amazonaws.com/staging/api/v1' },
  { OutputKey: 'ConsoleUrl', OutputValue: 'https://abc123.execute-api.ap-southeast-2.amazonaws.com/staging/console/' },
];

function deployed(stacks: Record<string, Output[]>): void {
  cloudFormation.on(DescribeStacksCommand).callsFake((input: { StackName: string }) => {
    const outputs = stacks[input.StackName];
    if (!outputs) throw Object.assign(new Error(`Stack with id ${input.StackName} does not exist`), { name: 'ValidationError' });
    return { Stacks: [{ StackName: input.StackName, StackStatus: 'UPDATE_COMPLETE', CreationTime: new Date(), Outputs: outputs }] };
  });
}

describe('awsStageSettings', () => {
  beforeEach(() => {
    cloudFormation.reset();
  });
  afterEach(() => {
    vi.unstubAllEnvs();
  });

  it("describes the stage's data and workers stacks by name and turns their outputs into the settings they carry", async () => {
    deployed({ 'AssessmentOps-staging-Data': DATA_OUTPUTS, 'AssessmentOps-staging-Workers': WORKERS_OUTPUTS, 'AssessmentOps-staging-Api': API_OUTPUTS });
    const found = await awsStageSettings('staging', REGION);
    expect(cloudFormation.commandCalls(DescribeStacksCommand).map((call) => call.args[0].input)).toEqual([
      { StackName: 'AssessmentOps-staging-Data' },
      { StackName: 'AssessmentOps-staging-Workers' },
      { StackName: 'AssessmentOps-staging-Api' },
    ]);
    expect(found).toEqual({
      AWS_REGION: REGION,
      TABLE_NAME: 'AssessmentOps-staging-Data-Table1234',
      BUCKET_NAME: 'assessmentops-staging-data-filesbucket1234',
      TOKEN_HASH_SECRET_ARN: `arn:aws:secretsmanager:${REGION}:123456789012:secret:TokenHashSecret-AbCdEf`,
      ...Object.fromEntries(queueNames.map((name) => [queueUrlVariable(name), queueUrl(name)])),
      CONSOLE_ORIGIN: 'https://abc123.execute-api.ap-southeast-2.amazonaws.com',
      CONSOLE_BASE_PATH: '/staging',
    });
    expect(found.SCAN_QUEUE_URL).toBe(queueUrl('scan'));
  });

  it('says which stack is missing in which region', async () => {
    deployed({ 'AssessmentOps-dev-Data': DATA_OUTPUTS });
    const refusal = awsStageSettings('dev', REGION);
    await expect(refusal).rejects.toBeInstanceOf(AwsStageError);
    await expect(refusal).rejects.toThrow(`no stack AssessmentOps-dev-Workers in ${REGION}: deploy the stage first`);
  });

  it('says which output a stack of an older version lacks', async () => {
    deployed({ 'AssessmentOps-dev-Data': DATA_OUTPUTS.filter((o) => o.OutputKey !== 'BucketName'), 'AssessmentOps-dev-Workers': WORKERS_OUTPUTS });
    await expect(awsStageSettings('dev', REGION)).rejects.toThrow(
      `stack AssessmentOps-dev-Data in ${REGION} has no output BucketName: deploy this version of the stage`,
    );
  });

  it('lets any other failure through as it is', async () => {
    const denied = Object.assign(new Error('not authorized to perform: cloudformation:DescribeStacks'), { name: 'AccessDenied' });
    cloudFormation.on(DescribeStacksCommand).rejects(denied);
    const refusal = awsStageSettings('dev', REGION);
    await expect(refusal).rejects.toThrow(/not authorized/);
    await expect(refusal).rejects.not.toBeInstanceOf(AwsStageError);
  });

  it('looks in the region the SDK chain finds when none is given', async () => {
    vi.stubEnv('AWS_REGION', 'eu-west-2');
    deployed({});
    await expect(awsStageSettings('dev', undefined)).rejects.toThrow('no stack AssessmentOps-dev-Data in eu-west-2');
  });
});

describe('useAwsStage', () => {
  beforeEach(() => {
    cloudFormation.reset();
    for (const name of [
      'TABLE_NAME',
      'AWS_REGION',
      'DYNAMODB_ENDPOINT',
      'S3_ENDPOINT',
      'SQS_ENDPOINT',
      'TOKEN_HASH_SECRET',
      'CONSOLE_ORIGIN',
      'CONSOLE_BASE_PATH',
      ...queueNames.map(queueUrlVariable),
    ]) {
      vi.stubEnv(name, '');
    }
  });
  afterEach(() => {
    vi.unstubAllEnvs();
    resetSettings();
  });

  it('replaces settings read before the stage was known', async () => {
    deployed({ 'AssessmentOps-dev-Data': DATA_OUTPUTS, 'AssessmentOps-dev-Workers': WORKERS_OUTPUTS, 'AssessmentOps-dev-Api': API_OUTPUTS });
    expect(settings().TABLE_NAME).toBe('assessment-operations');
    await useAwsStage('dev', 'eu-west-2');
    expect(settings()).toMatchObject({ TABLE_NAME: 'AssessmentOps-staging-Data-Table1234', AWS_REGION: 'eu-west-2' });
    expect(process.env.SCAN_QUEUE_URL).toBe(queueUrl('scan'));
    expect(settings()).toMatchObject({ CONSOLE_ORIGIN: 'https://abc123.execute-api.ap-southeast-2.amazonaws.com', CONSOLE_BASE_PATH: '/staging' });
  });

  it('reads a custom domain console as an origin without a base path', async () => {
    const onDomain = [{ OutputKey: 'ConsoleUrl', OutputValue: 'https://assess.example.com/console/' }];
    deployed({ 'AssessmentOps-dev-Data': DATA_OUTPUTS, 'AssessmentOps-dev-Workers': WORKERS_OUTPUTS, 'AssessmentOps-dev-Api': onDomain });
    expect(await awsStageSettings('dev', REGION)).toMatchObject({ CONSOLE_ORIGIN: 'https://assess.example.com', CONSOLE_BASE_PATH: '' });
  });

  it('refuses emulator endpoints and a local token-hash key, and a malformed stage, before asking CloudFormation', async () => {
    vi.stubEnv('SQS_ENDPOINT', 'http://127.0.0.1:9');
    vi.stubEnv('TOKEN_HASH_SECRET', 'x'.repeat(40));
    await expect(useAwsStage('dev', REGION)).rejects.toThrow(
      "--aws with SQS_ENDPOINT, TOKEN_HASH_SECRET set would not use the stage's own services and key: unset it",
    );
    vi.stubEnv('SQS_ENDPOINT', '');
    vi.stubEnv('TOKEN_HASH_SECRET', '');
    await expect(useAwsStage('Prod', REGION)).rejects.toThrow(/^--stage: stage "Prod" is not a stage name: it must match/);
    expect(cloudFormation.commandCalls(DescribeStacksCommand)).toEqual([]);
  });
});

describe('admin --aws', () => {
  const admin = (args: string[], env: Record<string, string> = {}) =>
    spawnSync('node', [inject('operatorCliPath'), ...args], { encoding: 'utf8', env: { ...process.env, ...env }, timeout: 30_000 });

  // Two fresh Node processes (the CLI compiled once per run by test/support/cli-build.ts).
  it('answers a refusal of the stage in one line with exit code 2, and takes --stage only with --aws', () => {
    const refusals = [
      admin(['user', 'create', '--email', 'a@example.com', '--name', 'A', '--aws'], { DYNAMODB_ENDPOINT: 'http://127.0.0.1:9' }),
      admin(['migrate', '--stage', 'prod']),
    ];
    expect(refusals.map((out) => [out.status, out.stderr.trim()])).toEqual([
      [2, "--aws with DYNAMODB_ENDPOINT set would not use the stage's own services and key: unset it"],
      [2, '--stage and --region go with --aws'],
    ]);
  }, 60_000);
});
