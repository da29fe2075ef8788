import { Duration, Validations } from 'aws-cdk-lib';
import { PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Architecture, Runtime, Tracing } from 'aws-cdk-lib/aws-lambda';
import { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { Construct } from 'constructs';
import { GSIS } from '../lib/store/keys.js';
import { lambdaBundling } from './bundling.js';

export interface ApiFunctionProps {
  entry: string;
  description: string;
  environment?: Record<string, string>;
}

/**
 * One HTTP-facing Lambda with its own log group and role. The role starts with nothing but log
 * writes and traces; callers add exactly the data access the function's operations need.
 */
export class ApiFunction extends Construct {
  readonly function: NodejsFunction;
  readonly role: Role;

  constructor(scope: Construct, id: string, props: ApiFunctionProps) {
    super(scope, id);
    const logGroup = new LogGroup(this, 'Logs', { retention: RetentionDays.THREE_MONTHS });
    this.role = new Role(this, 'Role', {
      assumedBy: new ServicePrincipal('lambda.amazonaws.com'),
      description: props.description,
    });
    logGroup.grantWrite(this.role);

    this.function = new NodejsFunction(this, 'Function', {
      entry: props.entry,
      handler: 'handler',
      description: props.description,
      runtime: Runtime.NODEJS_22_X,
      architecture: Architecture.ARM_64,
      // Lambda CPU scales with memory; 1 GB keeps cold starts of the zod and SDK bundle short.
      memorySize: 1024,
      // Below API Gateway's 29 s integration limit, so a slow call ends in our own logs, not a bare 504.
      timeout: Duration.seconds(28),
      role: this.role,
      logGroup,
      tracing: Tracing.ACTIVE,
      bundling: lambdaBundling(),
      environment: { NODE_OPTIONS: '--enable-source-maps', ...props.environment },
    });

    Validations.of(this.function).acknowledge({
      id: 'AwsSolutions-L1',
      reason:
        'Node.js 22 is the runtime the design fixes (DESIGN.md section 8) and the one the dependency set was tested on; moving to a newer runtime is a deliberate upgrade, not a synth-time default.',
    });
    Validations.of(this.role).acknowledge({
      id: 'AwsSolutions-IAM5[Resource::*]',
      reason: 'Active tracing needs xray:PutTraceSegments and xray:PutTelemetryRecords, which support no resource-level permissions; this is the only wildcard in the role.',
    });
  }

  /**
   * Item-level access to the table and its indexes, without Scan or BatchWriteItem (DESIGN.md
   * section 5: every access pattern is a key lookup or a Query). Transactions need no action of
   * their own: DynamoDB authorizes each item of a TransactWriteItems by its per-item action.
   */
  grantTableData(table: ITable): void {
    this.role.addToPrincipalPolicy(
      new PolicyStatement({
        actions: [
          'dynamodb:GetItem',
          'dynamodb:BatchGetItem',
          'dynamodb:Query',
          'dynamodb:ConditionCheckItem',
          'dynamodb:PutItem',
          'dynamodb:UpdateItem',
          'dynamodb:DeleteItem',
        ],
        resources: [table.tableArn, ...GSIS.map((gsi) => `${table.tableArn}/index/${gsi.name}`)],
      }),
    );
  }
}
