import { Duration } from 'aws-cdk-lib';
import type { Stage } from 'aws-cdk-lib/aws-apigateway';
import { Alarm, ComparisonOperator, TreatMissingData } from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { Topic } from 'aws-cdk-lib/aws-sns';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { stageResourceName } from './stage.js';

export interface ObservabilityProps {
  /** Group functions by group name. */
  functions: ReadonlyMap<string, IFunction>;
  stage: Stage;
  alarmTopicArn?: string;
}

const PERIOD = Duration.minutes(5);
/**
 * HTTP handlers turn every thrown error into a problem+json answer and queue workers report failed
 * messages instead of throwing, so there a Lambda error is a crash or a timeout; for the verdict
 * function it is a verdict that could not be applied. Either is worth a look.
 */
const FUNCTION_ERRORS_THRESHOLD = 1;
/** A few 5XX answers (503 on DynamoDB throttling) are expected under load; a run of them is not. */
const API_5XX_THRESHOLD = 5;

export class Observability extends Construct {
  readonly alarms: Alarm[] = [];

  constructor(scope: Construct, id: string, props: ObservabilityProps) {
    super(scope, id);

    for (const [group, fn] of props.functions) {
      this.alarms.push(functionErrorsAlarm(this, `Errors-${group}`, fn, `The ${group} function crashed or timed out`));
    }

    this.alarms.push(
      new Alarm(this, 'Api5xx', {
        alarmName: stageResourceName(this, 'Api5xx'),
        alarmDescription: 'The API answered 5XX repeatedly',
        metric: props.stage.metricServerError({ period: PERIOD, statistic: 'Sum' }),
        threshold: API_5XX_THRESHOLD,
        evaluationPeriods: 1,
        comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        treatMissingData: TreatMissingData.NOT_BREACHING,
      }),
    );

    notify(this, this.alarms, props.alarmTopicArn);
  }
}

export function functionErrorsAlarm(scope: Construct, id: string, fn: IFunction, description: string): Alarm {
  return new Alarm(scope, id, {
    alarmName: stageResourceName(scope, id),
    alarmDescription: description,
    metric: fn.metricErrors({ period: PERIOD, statistic: 'Sum' }),
    threshold: FUNCTION_ERRORS_THRESHOLD,
    evaluationPeriods: 1,
    comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
    treatMissingData: TreatMissingData.NOT_BREACHING,
  });
}

/** A dead-letter queue holds only what failed for good: a single message is worth a look. */
export function deadLettersAlarm(scope: Construct, id: string, queue: IQueue, description: string): Alarm {
  return new Alarm(scope, id, {
    alarmName: stageResourceName(scope, id),
    alarmDescription: description,
    metric: queue.metricApproximateNumberOfMessagesVisible({ period: PERIOD, statistic: 'Maximum' }),
    threshold: 0,
    evaluationPeriods: 1,
    comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
    treatMissingData: TreatMissingData.NOT_BREACHING,
  });
}

/** Sends the alarms to an existing SNS topic (context `alarmTopicArn`), when one is given. */
export function notify(scope: Construct, alarms: readonly Alarm[], alarmTopicArn: string | undefined): void {
  if (!alarmTopicArn) return;
  const action = new SnsAction(Topic.fromTopicArn(scope, 'AlarmTopic', alarmTopicArn));
  for (const alarm of alarms) alarm.addAlarmAction(action);
}
