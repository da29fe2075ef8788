import { beforeAll, describe, expect, it } from 'vitest';
import { Match } from 'aws-cdk-lib/assertions';
import { logicalIdOf, resourcesOf, synthesize, type Synthesized } from './fixture.js';

/** The console's function and routes (DESIGN.md section 11), on the stage's own endpoint. */
describe('ApiStack console', () => {
  let s: Synthesized;
  beforeAll(() => {
    s = synthesize({ stage: 'staging' });
  }, 60_000);

  const consoleRoutes = () => {
    const resources = resourcesOf(s.apiTemplate, 'AWS::ApiGateway::Resource');
    const consoleId = Object.entries(resources).find(([, r]) => r.Properties.PathPart === 'console')?.[0];
    const proxyId = Object.entries(resources).find(
      ([, r]) => r.Properties.PathPart === '{proxy+}' && JSON.stringify(r.Properties.ParentId) === JSON.stringify({ Ref: consoleId }),
    )?.[0];
    const methods = Object.values(resourcesOf(s.apiTemplate, 'AWS::ApiGateway::Method'));
    return {
      consoleId,
      proxyId,
      on: (id: string | undefined) => methods.filter((m) => JSON.stringify(m.Properties.ResourceId) === JSON.stringify({ Ref: id })),
    };
  };

  it('sends ANY on /console and everything below it to the console function', () => {
    const { consoleId, proxyId, on } = consoleRoutes();
    const target = logicalIdOf(s.api.consoleFunction);
    for (const id of [consoleId, proxyId]) {
      const methods = on(id);
      expect(methods.map((m) => m.Properties.HttpMethod)).toEqual(['ANY']);
      expect(JSON.stringify(methods[0]!.Properties.Integration)).toContain(`"${target}"`);
    }
  });

  it("gives the console the stage's WebAuthn origin, relying-party id and path prefix, built from the API id", () => {
    const apiId = { Ref: Match.stringLikeRegexp('^Api') };
    s.apiTemplate.hasResourceProperties('AWS::Lambda::Function', {
      Description: Match.stringLikeRegexp('^The web console'),
      Environment: {
        Variables: Match.objectLike({
          CONSOLE_ORIGIN: { 'Fn::Join': ['', ['https://', apiId, '.execute-api.', { Ref: 'AWS::Region' }, '.', { Ref: 'AWS::URLSuffix' }]] },
          CONSOLE_RP_ID: { 'Fn::Join': ['', [apiId, '.execute-api.', { Ref: 'AWS::Region' }, '.', { Ref: 'AWS::URLSuffix' }]] },
          CONSOLE_BASE_PATH: '/staging',
          TOKEN_HASH_SECRET_ARN: Match.anyValue(),
          CONSOLE_CONFIRMATION_SECONDS: '300',
        }),
      },
    });
  });

  it("gives every request function the stage's origin and path prefix, which a document generation records for the worker", () => {
    const variables = (f: { Properties: Record<string, unknown> }) => (f.Properties.Environment as { Variables: Record<string, unknown> }).Variables;
    const functions = Object.values(resourcesOf(s.apiTemplate, 'AWS::Lambda::Function'));
    const consoleOrigin = variables(functions.find((f) => /^The web console/.test(String(f.Properties.Description)))!).CONSOLE_ORIGIN;
    const groups = functions.filter((f) => /^Operations/.test(String(f.Properties.Description)));
    expect(groups.length).toBeGreaterThan(0);
    for (const fn of groups) expect([variables(fn).CONSOLE_ORIGIN, variables(fn).CONSOLE_BASE_PATH]).toEqual([consoleOrigin, '/staging']);
  });

  it('gives the passkeys function the WebAuthn settings of the console and no token-hash secret, since a ceremony never mints a token', () => {
    const variables = (f: { Properties: Record<string, unknown> }) => (f.Properties.Environment as { Variables: Record<string, unknown> }).Variables;
    const functions = resourcesOf(s.apiTemplate, 'AWS::Lambda::Function');
    const consoleFn = variables(functions[logicalIdOf(s.api.consoleFunction)]!);
    const passkeysFn = variables(functions[logicalIdOf(s.api.passkeysFunction)]!);
    expect([passkeysFn.CONSOLE_ORIGIN, passkeysFn.CONSOLE_RP_ID, passkeysFn.CONSOLE_BASE_PATH]).toEqual([
      consoleFn.CONSOLE_ORIGIN,
      consoleFn.CONSOLE_RP_ID,
      consoleFn.CONSOLE_BASE_PATH,
    ]);
    expect(passkeysFn.TOKEN_HASH_SECRET_ARN).toBeUndefined();
  });

  it('uses the custom domain as origin and relying-party id when the stage has one', () => {
    const onDomain = synthesize({
      stage: 'prod',
      domainName: 'assess.example.com',
      certificateArn: 'arn:aws:acm:ap-southeast-2:123456789012:certificate/abc-123',
    });
    onDomain.apiTemplate.hasResourceProperties('AWS::Lambda::Function', {
      Description: Match.stringLikeRegexp('^The web console'),
      Environment: {
        Variables: Match.objectLike({ CONSOLE_ORIGIN: 'https://assess.example.com', CONSOLE_RP_ID: 'assess.example.com', CONSOLE_BASE_PATH: '' }),
      },
    });
  });

  it('alarms on console function errors like on the group functions', () => {
    s.apiTemplate.hasResourceProperties('AWS::CloudWatch::Alarm', {
      AlarmName: Match.stringLikeRegexp('console'),
      Dimensions: [{ Name: 'FunctionName', Value: { Ref: logicalIdOf(s.api.consoleFunction) } }],
    });
  });
});
