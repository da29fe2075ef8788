import { Match } from 'aws-cdk-lib/assertions';
import type { Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { publicEndpoint } from '../../infra/stage.js';
import { QUEUES, queueUrlVariable, type QueueName } from '../../lib/queues/queues.js';
import { DATA_STACK_SETTINGS, outputKeyOf } from '../../lib/stages.js';
import { assemble, idOf, resourcesOf, synthesize, textOf, type Synthesized } from './fixture.js';

const DOMAIN = { domainName: 'assess.example.com', certificateArn: 'arn:aws:acm:ap-southeast-2:123456789012:certificate/0f1e2d3c-4b5a-6978-8a9b-0c1d2e3f4a5b' };

type Outputs = Record<string, { Value: unknown; Description?: string }>;
const outputsOf = (template: Template) => template.findOutputs('*') as Outputs;

let dev: Synthesized;
let prod: Synthesized;
beforeAll(() => {
  dev = synthesize();
  prod = synthesize({ stage: 'prod', ...DOMAIN });
}, 120_000);

describe('stages', () => {
  it('names the stacks, the REST API and its deployment stage after the stage, dev by default', () => {
    expect([dev.data, dev.workers, dev.api].map((stack) => stack.stackName)).toEqual([
      'AssessmentOps-dev-Data',
      'AssessmentOps-dev-Workers',
      'AssessmentOps-dev-Api',
    ]);
    expect([prod.data, prod.workers, prod.api].map((stack) => stack.stackName)).toEqual([
      'AssessmentOps-prod-Data',
      'AssessmentOps-prod-Workers',
      'AssessmentOps-prod-Api',
    ]);
    prod.apiTemplate.hasResourceProperties('AWS::ApiGateway::RestApi', { Name: 'assessment-operations-api-prod' });
    prod.apiTemplate.hasResourceProperties('AWS::ApiGateway::Stage', { StageName: 'prod' });
  });

  it('gives every alarm and WAF metric a name that carries its stack, so stages never share one', () => {
    for (const s of [dev, prod]) {
      for (const [stack, template] of [
        [s.api, s.apiTemplate],
        [s.workers, s.workersTemplate],
      ] as const) {
        const alarms = Object.values(resourcesOf(template, 'AWS::CloudWatch::Alarm'));
        expect(alarms.length).toBeGreaterThan(0);
        for (const alarm of alarms) expect(alarm.Properties.AlarmName).toMatch(new RegExp(`^${stack.stackName}-[A-Za-z0-9-]+$`));
      }
    }
    prod.apiTemplate.hasResourceProperties('AWS::WAFv2::WebACL', {
      VisibilityConfig: Match.objectLike({ MetricName: 'AssessmentOps-prod-Api-WebAcl' }),
      Rules: [Match.objectLike({ VisibilityConfig: Match.objectLike({ MetricName: 'AssessmentOps-prod-Api-PerIpRateShield' }) })],
    });
  });

  it('refuses a malformed stage, and a domain without its certificate or the reverse, at synth', () => {
    for (const stage of ['Prod', '1dev', 'dev_1', '', 'a'.repeat(17), 7]) {
      expect(() => assemble({ stage }), String(stage)).toThrow(/CDK context stage: .* must match/);
    }
    expect(() => assemble({ domainName: DOMAIN.domainName })).toThrow(/give both or neither/);
    expect(() => assemble({ certificateArn: DOMAIN.certificateArn })).toThrow(/give both or neither/);
    expect(() => assemble({ ...DOMAIN, domainName: 'Assess.Example.com' })).toThrow(/domainName/);
    expect(() => assemble({ ...DOMAIN, certificateArn: 'arn:aws:iam::123456789012:role/x' })).toThrow(/certificateArn/);
  });

  it('outputs the table, bucket and secret, and each queue URL, under the Pascal-case name of the setting they carry', () => {
    const data = outputsOf(dev.dataTemplate);
    expect(DATA_STACK_SETTINGS.map(outputKeyOf)).toEqual(['TableName', 'BucketName', 'TokenHashSecretArn']);
    expect(data.TableName?.Value).toEqual({ Ref: idOf(dev.data.table) });
    expect(data.BucketName?.Value).toEqual({ Ref: idOf(dev.data.bucket) });
    expect(data.TokenHashSecretArn?.Value).toEqual({ Ref: idOf(dev.data.tokenHashSecret) });
    const workers = outputsOf(dev.workersTemplate);
    expect(outputKeyOf(queueUrlVariable('scan'))).toBe('ScanQueueUrl');
    const queueKeys = (Object.keys(QUEUES) as QueueName[]).map((name) => [name, outputKeyOf(queueUrlVariable(name))] as const);
    for (const [name, key] of queueKeys) expect(workers[key]?.Value).toEqual({ Ref: idOf(dev.workers.jobs.get(name)!.queue) });
    const described = [...DATA_STACK_SETTINGS.map((setting) => data[outputKeyOf(setting)]), ...queueKeys.map(([, key]) => workers[key])];
    for (const output of described) expect(output?.Description).toMatch(/\([A-Z_]+\)$/);
  });

  it('outputs the API and console URLs on the execute-api host, under the stage path', () => {
    const outputs = outputsOf(dev.apiTemplate);
    const host = `<${idOf(dev.api.api)}>.execute-api.<AWS::Region>.<AWS::URLSuffix>`;
    expect(textOf(outputs.ApiUrl?.Value)).toBe(`https://${host}/dev/api/v1`);
    expect(textOf(outputs.ConsoleUrl?.Value)).toBe(`https://${host}/dev/console/`);
    expect(outputs.DomainTarget).toBeUndefined();
    dev.apiTemplate.resourceCountIs('AWS::ApiGateway::DomainName', 0);
  });

  it('maps the whole API at the root of a custom domain, with TLS 1.2, and outputs the target for its DNS record', () => {
    const domain = Object.values(resourcesOf(prod.apiTemplate, 'AWS::ApiGateway::DomainName'));
    expect(domain).toHaveLength(1);
    expect(domain[0]!.Properties).toMatchObject({
      DomainName: DOMAIN.domainName,
      RegionalCertificateArn: DOMAIN.certificateArn,
      EndpointConfiguration: { Types: ['REGIONAL'] },
      SecurityPolicy: 'TLS_1_2',
    });
    const mappings = Object.values(resourcesOf(prod.apiTemplate, 'AWS::ApiGateway::BasePathMapping'));
    expect(mappings).toHaveLength(1);
    expect(mappings[0]!.Properties.BasePath).toBeUndefined();
    expect(mappings[0]!.Properties.RestApiId).toEqual({ Ref: idOf(prod.api.api) });
    const outputs = outputsOf(prod.apiTemplate);
    expect(outputs.ApiUrl?.Value).toBe('https://assess.example.com/api/v1');
    expect(outputs.ConsoleUrl?.Value).toBe('https://assess.example.com/console/');
    const domainId = Object.keys(resourcesOf(prod.apiTemplate, 'AWS::ApiGateway::DomainName'))[0];
    expect(outputs.DomainTarget?.Value).toEqual({ 'Fn::GetAtt': [domainId, 'RegionalDomainName'] });
    expect(outputs.DomainTargetHostedZoneId?.Value).toEqual({ 'Fn::GetAtt': [domainId, 'RegionalHostedZoneId'] });
  });
});

describe('publicEndpoint', () => {
  it('builds the execute-api origin from the REST API id alone, so a function of the API stack may hold it', () => {
    const endpoint = dev.api.resolve(publicEndpoint(dev.api, dev.api.api, { name: 'dev' })) as Record<string, unknown>;
    const host = [{ Ref: idOf(dev.api.api) }, '.execute-api.', { Ref: 'AWS::Region' }, '.', { Ref: 'AWS::URLSuffix' }];
    expect(endpoint).toEqual({
      origin: { 'Fn::Join': ['', ['https://', ...host]] },
      rpId: { 'Fn::Join': ['', host] },
      basePath: '/dev',
    });
  });

  it('answers the custom domain as origin and relying-party id, with no path prefix', () => {
    expect(publicEndpoint(prod.api, prod.api.api, { name: 'prod', domain: DOMAIN })).toEqual({
      origin: 'https://assess.example.com',
      rpId: 'assess.example.com',
      basePath: '',
    });
  });
});
