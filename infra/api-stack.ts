import { fileURLToPath } from 'node:url';
import { CONSOLE_URL_OUTPUT } from '../lib/admin/aws-stage.js';
import { CfnOutput, Stack, Validations, type StackProps } from 'aws-cdk-lib';
import {
  AccessLogField,
  AccessLogFormat,
  BasePathMapping,
  DomainName,
  EndpointType,
  LambdaIntegration,
  ResponseTransferMode,
  LogGroupLogDestination,
  MethodLoggingLevel,
  RestApi,
  SecurityPolicy,
} from 'aws-cdk-lib/aws-apigateway';
import { Certificate } from 'aws-cdk-lib/aws-certificatemanager';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { ISecret } from 'aws-cdk-lib/aws-secretsmanager';
import { CfnWebACL, CfnWebACLAssociation } from 'aws-cdk-lib/aws-wafv2';
import type { Construct } from 'constructs';
import { passkeyCeremonies } from '../lib/console/routes/ceremonies.js';
import { consolePages } from '../lib/console/routes/pages.js';
import { activeFunctions, type FunctionName } from '../lib/operations/registry.js';
import { API_PREFIX } from '../lib/domain/api-paths.js';
import { AppFunction } from './app-function.js';
import { AWS_SETTINGS, tunableSettings } from './environment.js';
import { addProblemGatewayResponses } from './gateway-responses.js';
import { Observability } from './observability.js';
import { addConsoleRoutes, addRegistryRoutes } from './routes.js';
import { publicEndpoint, stageResourceName, type CustomDomain, type StageConfig } from './stage.js';
import { importSharedBucket, type SharedBucket } from './shared-bucket.js';

const HTTP_FUNCTIONS = fileURLToPath(new URL('../functions/http/', import.meta.url));

/**
 * The WAF rule is a coarse flood shield, deliberately above the exact per-IP ingress budget kept
 * in DynamoDB: honest clients meet the precise 429 with its Retry-After first.
 */
const WAF_LIMIT_FACTOR = 2;
const WAF_WINDOW_SECONDS = 60;

/**
 * Every body is binary to the gateway: requests reach the functions base64-encoded (the pipeline
 * decodes them), and a response marked isBase64Encoded (file downloads) is decoded back to bytes
 * whatever the client's Accept header lists first, which narrower types would not guarantee.
 */
export const BINARY_MEDIA_TYPES = ['*/*'];

export interface ApiStackProps extends StackProps {
  /** Names the REST API and its deployment stage, and gives the API its custom domain, if any. */
  stage: StageConfig;
  table: ITable;
  bucket: SharedBucket;
  tokenHashSecret: ISecret;
  /** An existing SNS topic for alarm notifications (context `alarmTopicArn`). */
  alarmTopicArn?: string;
}

export class ApiStack extends Stack {
  readonly api: RestApi;
  /** The HTTP functions by name: one per operation group, and the streaming downloads function. */
  readonly groupFunctions = new Map<FunctionName, AppFunction>();
  readonly metaFunction: AppFunction;
  /** The web console at /console/: pages, sessions, tokens, user administration. */
  readonly consoleFunction: AppFunction;
  /** The console's passkey ceremonies (sign-in, enrolment, registration, confirmation), apart for the size of their WebAuthn stack. */
  readonly passkeysFunction: AppFunction;

  constructor(scope: Construct, id: string, props: ApiStackProps) {
    super(scope, id, props);
    const settings = tunableSettings(this);
    const bucket = importSharedBucket(this, 'FilesBucket', props.bucket);

    this.metaFunction = new AppFunction(this, 'Meta', {
      entry: `${HTTP_FUNCTIONS}meta.ts`,
      description: 'OpenAPI document and the 404/405 answers for paths and methods no operation serves',
      // The audit event of every request it refuses.
      environment: { TABLE_NAME: props.table.tableName },
    });
    this.metaFunction.grantRecorded({ table: props.table, bucket });

    for (const group of activeFunctions()) {
      const fn = new AppFunction(this, `Group-${group}`, {
        entry: `${HTTP_FUNCTIONS}${group}.ts`,
        description: group === 'downloads' ? 'Operations that answer a file, with streamed responses' : `Operations of the ${group} group`,
        environment: {
          TABLE_NAME: props.table.tableName,
          BUCKET_NAME: bucket.bucketName,
          TOKEN_HASH_SECRET_ARN: props.tokenHashSecret.secretArn,
          ...AWS_SETTINGS,
          ...settings,
        },
      });
      fn.grantRecorded({ table: props.table, bucket });
      props.tokenHashSecret.grantRead(fn.role);
      this.groupFunctions.set(group, fn);
    }

    const accessLogs = new LogGroup(this, 'AccessLogs', { retention: RetentionDays.ONE_YEAR });
    this.api = new RestApi(this, 'Api', {
      restApiName: `assessment-operations-api-${props.stage.name}`,
      description: 'Assessment Operations API v1',
      endpointConfiguration: { types: [EndpointType.REGIONAL] },
      binaryMediaTypes: BINARY_MEDIA_TYPES,
      // Access and execution logs need the account-level API Gateway CloudWatch role.
      cloudWatchRole: true,
      deployOptions: {
        stageName: props.stage.name,
        tracingEnabled: true,
        metricsEnabled: true,
        // ERROR only and no data trace: request data would put bearer tokens into the logs.
        loggingLevel: MethodLoggingLevel.ERROR,
        dataTraceEnabled: false,
        accessLogDestination: new LogGroupLogDestination(accessLogs),
        accessLogFormat: AccessLogFormat.custom(
          JSON.stringify({
            requestId: AccessLogField.contextRequestId(),
            ip: AccessLogField.contextIdentitySourceIp(),
            requestTime: AccessLogField.contextRequestTime(),
            method: AccessLogField.contextHttpMethod(),
            resourcePath: AccessLogField.contextResourcePath(),
            status: AccessLogField.contextStatus(),
            responseLength: AccessLogField.contextResponseLength(),
            responseLatency: AccessLogField.contextResponseLatency(),
            integrationLatency: AccessLogField.contextIntegrationLatency(),
            errorType: AccessLogField.contextErrorResponseType(),
            wafStatus: AccessLogField.contextWafResponseCode(),
          }),
        ),
      },
    });

    // One invoke permission per function for the whole API instead of two per method: the route
    // count grows with the registry and every per-method permission is a CloudFormation resource.
    const integrationOptions = { proxy: true, scopePermissionToMethod: false } as const;
    const integrations = new Map<FunctionName, LambdaIntegration>();
    for (const [name, fn] of this.groupFunctions) {
      // Downloads stream (InvokeWithResponseStream), so files are not held to a buffered response's 6 MB.
      const mode = name === 'downloads' ? { responseTransferMode: ResponseTransferMode.STREAM } : {};
      integrations.set(name, new LambdaIntegration(fn.function, { ...integrationOptions, ...mode }));
    }
    const metaIntegration = new LambdaIntegration(this.metaFunction.function, integrationOptions);
    // A generation records the stage's public address for the documents it links from: the workers
    // that render them are deployed before this API, so only its request functions can know it.
    const endpoint = publicEndpoint(this, this.api, props.stage);
    for (const fn of this.groupFunctions.values()) {
      fn.function.addEnvironment('CONSOLE_ORIGIN', endpoint.origin);
      fn.function.addEnvironment('CONSOLE_BASE_PATH', endpoint.basePath);
    }
    [this.consoleFunction, this.passkeysFunction] = this.addConsole(props, settings, integrationOptions);
    addRegistryRoutes(
      this.api,
      (name) => {
        const integration = integrations.get(name);
        if (!integration) throw new Error(`no function ${name}`);
        return integration;
      },
      metaIntegration,
    );
    addProblemGatewayResponses(this.api, WAF_WINDOW_SECONDS);
    const ingressPerMinute = Number(settings.API_INGRESS_RATE_LIMIT_PER_MINUTE);
    if (!Number.isInteger(ingressPerMinute)) throw new Error('API_INGRESS_RATE_LIMIT_PER_MINUTE is not among the tunable settings');
    this.addWaf(ingressPerMinute);
    this.acknowledgeApiFindings();
    if (props.stage.domain) this.addCustomDomain(props.stage.domain);
    this.addEndpointOutputs(props.stage);

    new Observability(this, 'Observability', {
      functions: new Map([
        ...[...this.groupFunctions].map(([group, fn]) => [group as string, fn.function] as const),
        ['console', this.consoleFunction.function],
        ['passkeys', this.passkeysFunction.function],
      ]),
      stage: this.api.deploymentStage,
      ...(props.alarmTopicArn ? { alarmTopicArn: props.alarmTopicArn } : {}),
    });
  }

  /**
   * The console's two functions and their routes (DESIGN.md section 11): /console and everything
   * below it, the passkey ceremonies going to a function of their own, which alone carries the
   * WebAuthn verification library and its X.509 and ASN.1 stack. Their WebAuthn origin,
   * relying-party id and path prefix come from the stage's public endpoint; the console reads the
   * token-hash secret to mint the tokens it issues (a ceremony starts a session, never a token).
   */
  private addConsole(
    props: ApiStackProps,
    settings: Record<string, string>,
    integrationOptions: { proxy: true; scopePermissionToMethod: false },
  ): [AppFunction, AppFunction] {
    const endpoint = publicEndpoint(this, this.api, props.stage);
    const environment = {
      TABLE_NAME: props.table.tableName,
      CONSOLE_ORIGIN: endpoint.origin,
      CONSOLE_RP_ID: endpoint.rpId,
      CONSOLE_BASE_PATH: endpoint.basePath,
      ...settings,
    };
    const consoleFunction = new AppFunction(this, 'Console', {
      entry: `${HTTP_FUNCTIONS}console.ts`,
      description: 'The web console: pages, sessions, token issuance and revocation, user administration',
      environment: { ...environment, TOKEN_HASH_SECRET_ARN: props.tokenHashSecret.secretArn },
    });
    consoleFunction.grantRecorded({ table: props.table });
    props.tokenHashSecret.grantRead(consoleFunction.role);
    const passkeysFunction = new AppFunction(this, 'ConsolePasskeys', {
      entry: `${HTTP_FUNCTIONS}passkeys.ts`,
      description: 'Passkey ceremonies of the web console: sign-in, enrolment, registration and confirmation',
      environment,
    });
    passkeysFunction.grantRecorded({ table: props.table });
    addConsoleRoutes(
      this.api,
      { fn: consolePages, integration: new LambdaIntegration(consoleFunction.function, integrationOptions) },
      { fn: passkeyCeremonies, integration: new LambdaIntegration(passkeysFunction.function, integrationOptions) },
    );
    return [consoleFunction, passkeysFunction];
  }

  private addWaf(ingressPerMinute: number): void {
    const acl = new CfnWebACL(this, 'WebAcl', {
      scope: 'REGIONAL',
      defaultAction: { allow: {} },
      visibilityConfig: { cloudWatchMetricsEnabled: true, metricName: stageResourceName(this, 'WebAcl'), sampledRequestsEnabled: true },
      rules: [
        {
          name: 'per-ip-rate-shield',
          priority: 0,
          action: { block: {} },
          statement: {
            rateBasedStatement: {
              aggregateKeyType: 'IP',
              evaluationWindowSec: WAF_WINDOW_SECONDS,
              limit: Math.ceil((ingressPerMinute * WAF_LIMIT_FACTOR * WAF_WINDOW_SECONDS) / 60),
            },
          },
          visibilityConfig: { cloudWatchMetricsEnabled: true, metricName: stageResourceName(this, 'PerIpRateShield'), sampledRequestsEnabled: true },
        },
      ],
    });
    new CfnWebACLAssociation(this, 'WebAclAssociation', {
      resourceArn: this.api.deploymentStage.stageArn,
      webAclArn: acl.attrArn,
    });
  }

  /** The whole API at the domain's root; the operator points the domain's DNS at the regional target. */
  private addCustomDomain(domain: CustomDomain): void {
    const domainName = new DomainName(this, 'Domain', {
      domainName: domain.domainName,
      certificate: Certificate.fromCertificateArn(this, 'Certificate', domain.certificateArn),
      endpointType: EndpointType.REGIONAL,
      securityPolicy: SecurityPolicy.TLS_1_2,
    });
    new BasePathMapping(this, 'RootMapping', { domainName, restApi: this.api, stage: this.api.deploymentStage });
    new CfnOutput(this, 'DomainTarget', {
      value: domainName.domainNameAliasDomainName,
      description: `Regional API Gateway domain name: the target of a CNAME (or Route 53 alias) record for ${domain.domainName}`,
    });
    new CfnOutput(this, 'DomainTargetHostedZoneId', {
      value: domainName.domainNameAliasHostedZoneId,
      description: `Hosted zone of the regional target, for a Route 53 alias record for ${domain.domainName}`,
    });
  }

  private addEndpointOutputs(stage: StageConfig): void {
    const { origin, basePath } = publicEndpoint(this, this.api, stage);
    new CfnOutput(this, 'ApiUrl', {
      value: `${origin}${basePath}${API_PREFIX}`,
      description: 'Base URL of the API (append /openapi.json for its description)',
    });
    new CfnOutput(this, CONSOLE_URL_OUTPUT, {
      value: `${origin}${basePath}/console/`,
      description: 'The web console, where people sign in and manage their credentials',
    });
  }

  private acknowledgeApiFindings(): void {
    Validations.of(this.api).acknowledge(
      {
        id: 'AwsSolutions-APIG2',
        reason:
          'Requests are validated in the function by the zod schemas of the operation registry, which answer 422 problem+json with JSON Pointers (DESIGN.md section 4, step 7); a gateway validator would answer 400 in another shape and duplicate the schemas.',
      },
      {
        id: 'AwsSolutions-APIG4',
        reason:
          'Callers authenticate with opaque bearer tokens checked inside the function pipeline (HMAC hash lookup, expiry, revocation, live actor; DESIGN.md section 4, step 3), read in the same DynamoDB round trip as the rate-limit counters. The OpenAPI document and the 404/405 answers are public by design.',
      },
      {
        id: 'AwsSolutions-COG4',
        reason: 'The API has no Cognito user pool: credentials are API tokens issued and verified by the API itself (see the APIG4 acknowledgement).',
      },
    );
    const cloudWatchRole = this.api.node.tryFindChild('CloudWatchRole');
    if (cloudWatchRole) {
      Validations.of(cloudWatchRole).acknowledge({
        id: 'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AmazonAPIGatewayPushToCloudWatchLogs]',
        reason:
          'AmazonAPIGatewayPushToCloudWatchLogs is the documented policy of the account-level API Gateway logging role; it grants log writes only, and API Gateway names the execution log groups itself, so no narrower resource list exists.',
      });
    }
  }
}
