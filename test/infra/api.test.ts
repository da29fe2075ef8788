import { Match } from 'aws-cdk-lib/assertions';
import type { CfnStage } from 'aws-cdk-lib/aws-apigateway';
import type { CfnRole } from 'aws-cdk-lib/aws-iam';
import type { CfnFunction } from 'aws-cdk-lib/aws-lambda';
import { beforeAll, describe, expect, it } from 'vitest';
import { createAssembly } from '../../infra/assembly.js';
import { tunableSettingNames } from '../../infra/environment.js';
import { SETTINGS } from '../../lib/config.js';
import { activeGroups } from '../../lib/operations/registry.js';
import type { ApiFunction } from '../../infra/api-function.js';
import { logicalIdOf, NO_BUNDLING, resourcesOf, synthesize, type Synthesized } from './fixture.js';

interface Statement {
  Action: string | string[];
  Resource: unknown;
}

function actionsOf(s: Synthesized, fn: ApiFunction): string[] {
  const roleId = s.api.getLogicalId(fn.role.node.defaultChild as CfnRole);
  const policies = Object.values(resourcesOf(s.apiTemplate, 'AWS::IAM::Policy')).filter((p) =>
    JSON.stringify(p.Properties.Roles).includes(`"${roleId}"`),
  );
  return policies.flatMap((p) => (p.Properties.PolicyDocument as { Statement: Statement[] }).Statement.flatMap((st) => [st.Action].flat()));
}

describe('ApiStack', () => {
  let s: Synthesized;
  beforeAll(() => {
    s = synthesize();
  }, 60_000);

  it('runs every function on Node.js 22 on arm64', () => {
    const functions = Object.values(resourcesOf(s.apiTemplate, 'AWS::Lambda::Function'));
    expect(functions).toHaveLength(activeGroups().length + 1);
    for (const fn of functions) {
      expect(fn.Properties).toMatchObject({ Runtime: 'nodejs22.x', Architectures: ['arm64'], TracingConfig: { Mode: 'Active' } });
    }
  });

  it('creates one function per active group, configured through the seed settings', () => {
    expect([...s.api.groupFunctions.keys()].sort()).toEqual(activeGroups().sort());
    const functions = resourcesOf(s.apiTemplate, 'AWS::Lambda::Function');
    const env = (fn: ApiFunction) => (functions[logicalIdOf(fn)]?.Properties.Environment as { Variables: Record<string, unknown> }).Variables;
    for (const fn of s.api.groupFunctions.values()) {
      const variables = env(fn);
      expect(Object.keys(variables)).toEqual(expect.arrayContaining(['TABLE_NAME', 'BUCKET_NAME', 'TOKEN_HASH_SECRET_ARN']));
      expect(variables.NODE_OPTIONS).toBe('--enable-source-maps');
      for (const name of tunableSettingNames()) {
        expect(variables[name]).toBe(String(SETTINGS[name as keyof typeof SETTINGS].schema.parse(undefined)));
      }
    }
    expect(tunableSettingNames()).toEqual(expect.arrayContaining(['API_INGRESS_RATE_LIMIT_PER_MINUTE', 'TOKEN_ADMINISTRATION_MAX_DAYS', 'ORGANISATION_LICENCE_LIMIT']));
  });

  it('takes setting overrides from the CDK context and rejects invalid ones at synth', () => {
    const { api } = createAssembly({ context: { ...NO_BUNDLING, API_READ_RATE_LIMIT_PER_MINUTE: '200' } });
    const fn = [...api.groupFunctions.values()][0]!;
    const environment = api.resolve((fn.function.node.defaultChild as CfnFunction).environment) as { variables: Record<string, string> };
    expect(environment.variables.API_READ_RATE_LIMIT_PER_MINUTE).toBe('200');
    expect(() => createAssembly({ context: { ...NO_BUNDLING, TOKEN_ORGANISATION_MAX_DAYS: '-3' } })).toThrow(/TOKEN_ORGANISATION_MAX_DAYS/);
  });

  it('gives group functions item-level table access and the secret, but no Scan and no S3', () => {
    for (const fn of s.api.groupFunctions.values()) {
      const actions = actionsOf(s, fn);
      expect(actions).toEqual(expect.arrayContaining(['dynamodb:GetItem', 'dynamodb:Query', 'dynamodb:UpdateItem', 'secretsmanager:GetSecretValue']));
      expect(actions.filter((a) => a === 'dynamodb:Scan' || a.startsWith('s3:') || a.endsWith(':*'))).toEqual([]);
    }
  });

  it('gives the meta function no table, bucket or secret access', () => {
    const actions = actionsOf(s, s.api.metaFunction);
    expect(actions.length).toBeGreaterThan(0);
    expect(actions.filter((a) => /^(dynamodb|s3|secretsmanager|kms):/.test(a))).toEqual([]);
  });

  it('deploys a regional API to the prod stage with tracing, access and execution logs', () => {
    s.apiTemplate.hasResourceProperties('AWS::ApiGateway::RestApi', { EndpointConfiguration: { Types: ['REGIONAL'] } });
    s.apiTemplate.hasResourceProperties('AWS::ApiGateway::Stage', {
      StageName: 'prod',
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

  it('alarms on each group function error and on API 5XX', () => {
    const alarms = Object.values(resourcesOf(s.apiTemplate, 'AWS::CloudWatch::Alarm')).map((a) => a.Properties);
    for (const fn of s.api.groupFunctions.values()) {
      expect(alarms).toContainEqual(
        expect.objectContaining({ MetricName: 'Errors', Namespace: 'AWS/Lambda', Dimensions: [{ Name: 'FunctionName', Value: { Ref: logicalIdOf(fn) } }] }),
      );
    }
    expect(alarms).toContainEqual(expect.objectContaining({ MetricName: '5XXError', Namespace: 'AWS/ApiGateway' }));
    expect(alarms).toHaveLength(s.api.groupFunctions.size + 1);
  });
});
