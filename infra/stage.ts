import { CfnOutput, Stack } from 'aws-cdk-lib';
import type { IRestApi } from 'aws-cdk-lib/aws-apigateway';
import type { Construct } from 'constructs';
import { DEFAULT_STAGE, isStageName, notAStageName, outputKeyOf } from '../lib/stages.js';

/** A custom domain the operator owns: its DNS stays with them, pointed at the regional target the API stack outputs. */
export interface CustomDomain {
  domainName: string;
  /** An ACM certificate for the domain, in the stage's region (a regional endpoint's certificate must be). */
  certificateArn: string;
}

/** One installation of the product; several live side by side in one account, each under its own names. */
export interface StageConfig {
  name: string;
  domain?: CustomDomain;
}

const DOMAIN_NAME = /^(?=.{1,253}$)(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/;
const CERTIFICATE_ARN = /^arn:aws[a-z-]*:acm:[a-z0-9-]+:\d{12}:certificate\/[A-Za-z0-9-]+$/;

/** The stage from the CDK context (`-c stage=prod`, optionally `-c domainName=... -c certificateArn=...`), refused at synth when malformed. */
export function stageFromContext(scope: Construct): StageConfig {
  const name: unknown = scope.node.tryGetContext('stage') ?? DEFAULT_STAGE;
  if (!isStageName(name)) throw new Error(`CDK context stage: ${notAStageName(name)}`);
  const domainName: unknown = scope.node.tryGetContext('domainName');
  const certificateArn: unknown = scope.node.tryGetContext('certificateArn');
  if (domainName === undefined && certificateArn === undefined) return { name };
  if (domainName === undefined || certificateArn === undefined) {
    throw new Error('CDK context domainName and certificateArn go together: give both or neither');
  }
  if (typeof domainName !== 'string' || !DOMAIN_NAME.test(domainName)) {
    throw new Error(`CDK context domainName ${JSON.stringify(domainName)} is not a lower-case DNS name`);
  }
  if (typeof certificateArn !== 'string' || !CERTIFICATE_ARN.test(certificateArn)) {
    throw new Error(`CDK context certificateArn ${JSON.stringify(certificateArn)} is not an ACM certificate ARN`);
  }
  return { name, domain: { domainName, certificateArn } };
}

/** Where browsers reach a stage: what WebAuthn checks (relying-party id, exact origin) and the prefix of its pages. */
export interface PublicEndpoint {
  /** `https://host`, without a trailing slash. */
  origin: string;
  rpId: string;
  /** The path prefix before `/api/v1` and `/console/`: `/<stage>` on the execute-api host, empty on a custom domain. */
  basePath: string;
}

/**
 * Built from the API's id, not from its deployment stage's URL: a function of the API stack whose
 * environment referenced the stage would depend on the deployment, which depends on the methods,
 * which depend on the function (a cycle). The execute-api host is what `RestApi.url` names too.
 */
export function publicEndpoint(scope: Construct, api: IRestApi, stage: StageConfig): PublicEndpoint {
  if (stage.domain) return { origin: `https://${stage.domain.domainName}`, rpId: stage.domain.domainName, basePath: '' };
  const stack = Stack.of(scope);
  const host = `${api.restApiId}.execute-api.${stack.region}.${stack.urlSuffix}`;
  return { origin: `https://${host}`, rpId: host, basePath: `/${stage.name}` };
}

/** An explicit name of a resource that must be unique in the account and region: the stack name carries the stage. */
export function stageResourceName(scope: Construct, id: string): string {
  return `${Stack.of(scope).stackName}-${id}`;
}

/** A stack output the operator CLI reads back into the setting it is named after (`admin --aws`). */
export function settingOutput(stack: Stack, setting: string, value: string, description: string): CfnOutput {
  return new CfnOutput(stack, outputKeyOf(setting), { value, description: `${description} (${setting})` });
}
