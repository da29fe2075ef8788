import { Duration } from 'aws-cdk-lib';
import type { Stage } from 'aws-cdk-lib/aws-apigateway';
import { Alarm, ComparisonOperator, TreatMissingData } from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { Construct } from 'constructs';

export interface ObservabilityProps {
  /** Group functions by group name. */
  functions: ReadonlyMap<string, IFunction>;
  stage: Stage;
  alarmTopicArn?: string;
}

const PERIOD = Duration.minutes(5);
/**
 * Handlers turn every thrown error into a problem+json answer, so a Lambda error is a crash or a
 * timeout: one is worth a look.
 */
const FUNCTION_ERRORS_THRESHOLD = 1;
/** A few 5XX answers (503 on DynamoDB throttling) are expected under load; a run of them is not. */
const API_5XX_THRESHOLD = 5;

export class Observability extends Construct {
  readonly alarms: Alarm[] = [];

  constructor(scope: Construct, id: string, props: ObservabilityProps) {
    super(scope, id);

    for (const [group, fn] of props.functions) {
      this.alarms.push(
        new Alarm(this, `Errors-${group}`, {
          alarmDescription: `The ${group} function crashed or timed out`,
          metric: fn.metricErrors({ period: PERIOD, statistic: 'Sum' }),
          threshold: FUNCTION_ERRORS_THRESHOLD,
          evaluationPeriods: 1,
          comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
          treatMissingData: TreatMissingData.NOT_BREACHING,
        }),
      );
    }

    this.alarms.push(
      new Alarm(this, 'Api5xx', {
        alarmDescription: 'The API answered 5XX repeatedly',
        metric: props.stage.metricServerError({ period: PERIOD, statistic: 'Sum' }),
        threshold: API_5XX_THRESHOLD,
        evaluationPeriods: 1,
        comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        treatMissingData: TreatMissingData.NOT_BREACHING,
      }),
    );

    if (props.alarmTopicArn) {
      const action = new SnsAction(Topic.fromTopicArn(this, 'AlarmTopic', props.alarmTopicArn));
      for (const alarm of this.alarms) alarm.addAlarmAction(action);
    }
  }
}
