import { App, Validations, type AppProps } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { ApiStack } from './api-stack.js';
import { stackName } from '../lib/stages.js';
import { DataStack } from './data-stack.js';
import { stageFromContext } from './stage.js';
import { WorkersStack } from './workers-stack.js';

export interface Assembly {
  app: App;
  data: DataStack;
  workers: WorkersStack;
  api: ApiStack;
}

/**
 * Set here rather than in cdk.json so that the tests' App behaves like the deployed one. The
 * server access log bucket is written through a bucket policy, not the legacy LogDeliveryWrite ACL,
 * which would need ACLs switched back on. Cross-stack references stay strong (exports): the API
 * stack must never be left pointing at a table or secret the data stack has dropped.
 */
const FEATURE_FLAGS = {
  '@aws-cdk/aws-s3:serverAccessLogsUseBucketPolicy': true,
  '@aws-cdk/core:defaultCrossStackReferences': 'strong',
} as const;

/**
 * The whole application, shared by `infra/app.ts` and the infra tests so that both check the
 * same thing. Stacks are environment-agnostic: nothing is looked up, so synth runs offline. The
 * stage (context `stage`) names the stacks, so that several installations share an account; a
 * stack's id is its name, so that `cdk deploy 'AssessmentOps-prod-*'` selects one installation.
 */
export function createAssembly(props?: AppProps): Assembly {
  const app = new App({ ...props, context: { ...FEATURE_FLAGS, ...props?.context } });
  const stage = stageFromContext(app);
  const data = new DataStack(app, stackName(stage.name, 'Data'), {
    description: `Assessment Operations API (${stage.name}): table, files bucket and token-hash secret`,
  });
  const contextTopic: unknown = app.node.tryGetContext('alarmTopicArn');
  const alarmTopic = typeof contextTopic === 'string' && contextTopic !== '' ? { alarmTopicArn: contextTopic } : {};
  // Deployed in this order; each stack references only the ones before it.
  const workers = new WorkersStack(app, stackName(stage.name, 'Workers'), {
    description: `Assessment Operations API (${stage.name}): job queues, workers and GuardDuty malware scanning`,
    table: data.table,
    bucket: data.sharedBucket,
    ...alarmTopic,
  });
  const api = new ApiStack(app, stackName(stage.name, 'Api'), {
    description: `Assessment Operations API (${stage.name}): REST API, WAF, group functions and alarms`,
    stage,
    table: data.table,
    bucket: data.sharedBucket,
    tokenHashSecret: data.tokenHashSecret,
    ...alarmTopic,
  });
  // cdk-nag 3 is a validation plugin: synth fails on any finding not acknowledged with a reason.
  Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
  return { app, data, workers, api };
}
