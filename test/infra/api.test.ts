import { Match } from 'aws-cdk-lib/assertions';
import type { CfnStage } from 'aws-cdk-lib/aws-apigateway';
import type { CfnFunction } from 'aws-cdk-lib/aws-lambda';
import { beforeAll, describe, expect, it } from 'vitest';
import type { AppFunction } from '../../infra/app-function.js';
import { tunableSettingNames } from '../../infra/environment.js';
import { usesOf } from '../../infra/uses.js';
import { SETTINGS } from '../../lib/config.js';
import { activeFunctions } from '../../lib/operations/registry.js';
import { actionsIn, assemble, logicalIdOf, resourcesOf, statementsOf, synthesize, type Synthesized } from './fixture.js';

function actionsOf(s: Synthesized, fn: AppFunction): string[] {
  return actionsIn(statementsOf(s.apiTemplate, fn));
}

describe('ApiStack', () => {
  let s: Synthesized;
  beforeAll(() => {
    s = synthesize();
  }, 60_000);

  it('runs every function on Node.js 24 on arm64, from the index.mjs of its bundle', () => {
    const functions = Object.values(resourcesOf(s.apiTemplate, 'AWS::Lambda::Function'));
    // The groups, the meta function and the console's two.
    expect(functions).toHaveLength(activeFunctions().length + 3);
    for (const fn of functions) {
      expect(fn.Properties).toMatchObject({ Handler: 'index.handler', Runtime: 'nodejs24.x', Architectures: ['arm64'], TracingConfig: { Mode: 'Active' } });
    }
  });

  const env = (fn: AppFunction) =>
    (resourcesOf(s.apiTemplate, 'AWS::Lambda::Function')[logicalIdOf(fn)]!.Properties.Environment as { Variables: Record<string, unknown> }).Variables;

  it('creates one function per active group, configured through the seed settings', () => {
    expect([...s.api.groupFunctions.keys()].sort()).toEqual(activeFunctions().sort());
    for (const fn of s.api.groupFunctions.values()) {
      const variables = env(fn);
      expect(Object.keys(variables)).toEqual(expect.arrayContaining(['TABLE_NAME', 'BUCKET_NAME', 'TOKEN_HASH_SECRET_ARN']));
      expect(variables).not.toHaveProperty('NODE_OPTIONS');
      expect(variables.MALWARE_SCANNER).toBe('guardduty');
      for (const name of tunableSettingNames()) {
        const fallback = SETTINGS[name].schema.parse(undefined);
        // A setting without a default is left unset; the functions then use their built-in value.
        expect(variables[name]).toBe(fallback === undefined ? undefined : String(fallback));
      }
    }
  });

  it('passes every product setting and none of the settings the stacks wire or only the local runtime reads', () => {
    const tunable = tunableSettingNames();
    expect(tunable).toEqual(
      expect.arrayContaining([
        'API_INGRESS_RATE_LIMIT_PER_MINUTE',
        'TOKEN_ADMINISTRATION_MAX_DAYS',
        'ORGANISATION_LICENCE_LIMIT',
        'SYSTEM_LICENCE_LIMIT',
        'LICENSED_CLASSIFICATIONS',
      ]),
    );
    for (const wired of [
      'TABLE_NAME',
      'BUCKET_NAME',
      'TOKEN_HASH_SECRET',
      'TOKEN_HASH_SECRET_ARN',
      'MALWARE_SCANNER',
      'AWS_REGION',
      'DYNAMODB_ENDPOINT',
      'DATA_DIR',
      'PORT',
    ]) {
      expect(tunable).not.toContain(wired);
    }
    expect(env(s.api.groupFunctions.get('organisations')!).LICENSED_CLASSIFICATIONS).toBe('NC,OS,P');
  });

  it('takes setting overrides from the CDK context and rejects invalid ones at synth', () => {
    const { api } = assemble({ API_READ_RATE_LIMIT_PER_MINUTE: '200' });
    const fn = [...api.groupFunctions.values()][0]!;
    const environment = api.resolve((fn.function.node.defaultChild as CfnFunction).environment) as { variables: Record<string, string> };
    expect(environment.variables.API_READ_RATE_LIMIT_PER_MINUTE).toBe('200');
    expect(() => assemble({ TOKEN_ORGANISATION_MAX_DAYS: '-3' })).toThrow(/TOKEN_ORGANISATION_MAX_DAYS/);
    const licensed = assemble({ LICENSED_CLASSIFICATIONS: 'NC, S' }).api;
    const licensedFn = [...licensed.groupFunctions.values()][0]!;
    const licensedEnv = licensed.resolve((licensedFn.function.node.defaultChild as CfnFunction).environment) as { variables: Record<string, string> };
    expect(licensedEnv.variables.LICENSED_CLASSIFICATIONS).toBe('NC,S');
    expect(() => assemble({ LICENSED_CLASSIFICATIONS: 'NC,XX' })).toThrow(/LICENSED_CLASSIFICATIONS/);
  });

  // Which data actions each group gets is derived from its recorded commands (test/infra/grants.test.ts).
  it('gives group functions the secret, but no Scan and no wildcard action', () => {
    for (const fn of s.api.groupFunctions.values()) {
      const actions = actionsOf(s, fn);
      expect(actions).toContain('secretsmanager:GetSecretValue');
      expect(actions.filter((a) => a === 'dynamodb:Scan' || a.endsWith(':*'))).toEqual([]);
    }
  });

  it('gives a group no S3 access unless its operations declare it, and no group SQS access', () => {
    for (const fn of s.api.groupFunctions.values()) {
      expect(actionsOf(s, fn).filter((a) => a.startsWith('sqs:'))).toEqual([]);
      expect(Object.keys(env(fn)).filter((name) => name.endsWith('_QUEUE_URL'))).toEqual([]);
    }
    const bare = activeFunctions().filter((g) => !usesOf(g).files);
    expect(bare.length).toBeGreaterThan(0);
    for (const group of bare) {
      const fn = s.api.groupFunctions.get(group)!;
      expect(actionsOf(s, fn).filter((a) => a.startsWith('s3:') || a.startsWith('sqs:'))).toEqual([]);
      expect(Object.keys(env(fn)).filter((name) => name.endsWith('_QUEUE_URL'))).toEqual([]);
    }
  });

  it('lets multipart and binary bodies through base64-encoded', () => {
    s.apiTemplate.hasResourceProperties('AWS::ApiGateway::RestApi', { BinaryMediaTypes: ['*/*'] });
  });

  it('gives the meta function the audit write of what it refuses, and no bucket, queue or secret access', () => {
    const actions = actionsOf(s, s.api.metaFunction);
    expect(actions.filter((a) => /^(dynamodb|s3|secretsmanager|kms|sqs):/.test(a))).toEqual(['dynamodb:PutItem']);
  });

  it('deploys a regional API to a deployment stage named after the stage, with tracing, access and execution logs', () => {
    s.apiTemplate.hasResourceProperties('AWS::ApiGateway::RestApi', { EndpointConfiguration: { Types: ['REGIONAL'] } });
    s.apiTemplate.hasResourceProperties('AWS::ApiGateway::Stage', {
      StageName: 'dev',
      TracingEnabled: true,
      AccessLogSetting: { DestinationArn: Match.anyValue(), Format: Match.stringLikeRegexp('requestId') },
      MethodSettings: [Match.objectLike({ LoggingLevel: 'ERROR', DataTraceEnabled: false })],
    });
  });

  it('answers gateway errors as problem+json with the request id', () => {
    for (const type of ['DEFAULT_4XX', 'DEFAULT_5XX', 'MISSING_AUTHENTICATION_TOKEN', 'WAF_FILTERED']) {
      s.apiTemplate.hasResourceProperties('AWS::ApiGateway::GatewayResponse', {
        ResponseType: type,
        ResponseParameters: Match.objectLike({
          'gatewayresponse.header.Content-Type': "'application/problem+json'",
          'gatewayresponse.header.X-Request-ID': 'context.requestId',
        }),
        ResponseTemplates: { 'application/json': Match.stringLikeRegexp('"request_id":"\\$context.requestId"') },
      });
    }
    for (const response of Object.values(resourcesOf(s.apiTemplate, 'AWS::ApiGateway::GatewayResponse'))) {
      const body = (response.Properties.ResponseTemplates as Record<string, string>)['application/json']!;
      expect(() => JSON.parse(body)).not.toThrow();
    }
  });

  it('puts a WAF rate-based rule per IP on the stage', () => {
    s.apiTemplate.hasResourceProperties('AWS::WAFv2::WebACL', {
      Scope: 'REGIONAL',
      Rules: [Match.objectLike({ Action: { Block: {} }, Statement: { RateBasedStatement: Match.objectLike({ AggregateKeyType: 'IP' }) } })],
    });
    const stageId = s.api.getLogicalId(s.api.api.deploymentStage.node.defaultChild as CfnStage);
    const association = Object.values(resourcesOf(s.apiTemplate, 'AWS::WAFv2::WebACLAssociation'));
    expect(association).toHaveLength(1);
    expect(JSON.stringify(association[0]!.Properties.ResourceArn)).toContain(`"/stages/",{"Ref":"${stageId}"}`);
  });

  it("alarms on each group function's and the console functions' errors and on API 5XX", () => {
    const alarms = Object.values(resourcesOf(s.apiTemplate, 'AWS::CloudWatch::Alarm')).map((a) => a.Properties);
    for (const fn of [...s.api.groupFunctions.values(), s.api.consoleFunction, s.api.passkeysFunction]) {
      expect(alarms).toContainEqual(
        expect.objectContaining({ MetricName: 'Errors', Namespace: 'AWS/Lambda', Dimensions: [{ Name: 'FunctionName', Value: { Ref: logicalIdOf(fn) } }] }),
      );
    }
    expect(alarms).toContainEqual(expect.objectContaining({ MetricName: '5XXError', Namespace: 'AWS/ApiGateway' }));
    expect(alarms).toHaveLength(s.api.groupFunctions.size + 3);
  });
});
