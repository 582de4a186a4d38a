import { Duration } from 'aws-cdk-lib';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import * as events from 'aws-cdk-lib/aws-events';
import * as targets from 'aws-cdk-lib/aws-events-targets';
import * as iam from 'aws-cdk-lib/aws-iam';
import type { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import { Construct } from 'constructs';
import { REPAIR_EVERY_SECONDS } from '#shared/db/repair-schedule.ts';
import type { ApiFunctions } from './api-construct.ts';
import { LAMBDA_BUNDLING } from './bundling.ts';
import type { StageConfig } from './stage-config.ts';

export interface RepairWorkerProps {
  config: StageConfig;
  table: ITable;
  functions: ApiFunctions;
}

/** How often the repair worker looks for interrupted writes (with the 20 s lease: repaired within 2 minutes). */
export const REPAIR_SCHEDULE = Duration.seconds(REPAIR_EVERY_SECONDS);

/**
 * The repair worker (`functions/workers/repair-worker.ts`, not a route): every minute it finishes
 * or undoes the large writes whose writer stopped renewing its lease (a crash, a timeout, a frozen
 * Lambda), computes the listing orders requests handed over, and builds the view indexes listings
 * asked for. A route that hands it an order wakes it at once (an async invoke). Its role may only
 * use the table.
 */
export class RepairWorker extends Construct {
  readonly worker: NodejsFunction;

  constructor(scope: Construct, id: string, props: RepairWorkerProps) {
    super(scope, id);
    const { config, table, functions } = props;
    const role = new iam.Role(this, 'Role', {
      assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com'),
      description: `Workspace API ${config.stage}: the repair worker`,
      inlinePolicies: {
        Access: new iam.PolicyDocument({
          statements: functions.tableStatements('write').filter((s) => s.sid !== 'SigningKeys'),
        }),
      },
    });
    this.worker = functions.lambda(this, 'Worker', {
      entry: 'workers/repair-worker.ts',
      description:
        'Repair worker: finishes or undoes interrupted large writes, computes handed-over listing orders, builds asked-for view indexes',
      timeout: Duration.minutes(5),
      // One run at a time is enough; two would only race for the same claims.
      reservedConcurrentExecutions: 1,
      role,
      bundling: LAMBDA_BUNDLING,
      // The table only: every other variable is declared empty (lambdaEnvironment).
      environment: { TABLE_NAME: table.tableName },
    });
    // Routes wake it with an async invoke when they hand it a listing order (shared/jobs/worker-wake.ts).
    // One run at a time: a wake during a run waits in Lambda's queue; one older than five minutes
    // is dropped and a failed run is not invoked again (the schedule runs it every minute anyway).
    this.worker.configureAsyncInvoke({ maxEventAge: Duration.minutes(5), retryAttempts: 0 });
    functions.repairWorker = this.worker;
    new events.Rule(this, 'Schedule', {
      description:
        'Every minute: finish or undo interrupted large writes, compute handed-over listing orders, build asked-for view indexes',
      schedule: events.Schedule.rate(REPAIR_SCHEDULE),
      targets: [new targets.LambdaFunction(this.worker)],
    });
  }
}
