import { CfnOutput, Stack, type StackProps } from 'aws-cdk-lib';
import { HttpApi } from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import type { Construct } from 'constructs';
import { TABLE_DEFINITION } from '#shared/db/table-definition.ts';
import { API_PREFIX, ROUTES, type RouteDef } from '#shared/routes.ts';
import { ApiFunctions, corsPreflightFor } from './api-construct.ts';
import { AttachmentsBucket } from './attachments-bucket.ts';
import { Monitoring } from './monitoring.ts';
import { PurgeWorker } from './purge-worker-construct.ts';
import { RepairWorker } from './repair-worker-construct.ts';
import { groupRoutes, RouteStack, routeStackId } from './route-stacks.ts';
import type { StageConfig } from './stage-config.ts';
import { StreamProcessor } from './stream-processor-construct.ts';
import { WebDistribution } from './web-distribution.ts';
import { WebhookSender } from './webhook-sender-construct.ts';
import { WebSocketApi } from './websocket-api.ts';

export interface WorkspaceApiStackProps extends StackProps {
  config: StageConfig;
  /** Repository root: holds `functions/` and the lock file. */
  projectRoot: string;
  /** The routes to serve; tests pass synthetic tables to check the resource budget. */
  routes?: readonly RouteDef[];
}

/**
 * The whole API of one stage: the table, the signing-key secret, the HTTP API and one Lambda per
 * route. The routes are in nested stacks (infra/route-stacks.ts: how and why), everything they
 * share is here; `cdk deploy` deploys this stack and its nested stacks as one.
 */
export class WorkspaceApiStack extends Stack {
  constructor(scope: Construct, id: string, props: WorkspaceApiStackProps) {
    super(scope, id, {
      description: `Workspace API (${props.config.stage}): HTTP API, Lambda, DynamoDB`,
      ...props,
    });
    const { config, projectRoot, routes = ROUTES } = props;
    const string = dynamodb.AttributeType.STRING;

    // Built from the shared definition, like the local server's table, so both always agree.
    const table = new dynamodb.Table(this, 'Table', {
      partitionKey: { name: TABLE_DEFINITION.partitionKey, type: string },
      sortKey: { name: TABLE_DEFINITION.sortKey, type: string },
      billingMode: dynamodb.BillingMode.PAY_PER_REQUEST,
      timeToLiveAttribute: TABLE_DEFINITION.ttlAttribute,
      stream: dynamodb.StreamViewType[TABLE_DEFINITION.streamViewType],
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: config.pointInTimeRecovery },
      deletionProtection: config.deletionProtection,
      removalPolicy: config.removalPolicy,
    });
    for (const gsi of TABLE_DEFINITION.globalSecondaryIndexes) {
      table.addGlobalSecondaryIndex({
        indexName: gsi.name,
        partitionKey: { name: gsi.partitionKey, type: string },
        sortKey: { name: gsi.sortKey, type: string },
        projectionType: dynamodb.ProjectionType.ALL,
      });
    }

    // `{current, k1: <64 chars>}`: the shape shared/auth/signing-keys.ts parses. CloudFormation generates
    // the key, so it never appears in the template or on a laptop. Rotation adds a kid and moves `current`.
    const signingKeys = new secretsmanager.Secret(this, 'SigningKeys', {
      description: `Workspace API ${config.stage}: HS256 keys of temporary tokens`,
      generateSecretString: {
        secretStringTemplate: JSON.stringify({ current: 'k1' }),
        generateStringKey: 'k1',
        passwordLength: 64,
        excludePunctuation: true,
      },
      removalPolicy: config.removalPolicy,
    });

    // Files of attachment cells (data-flow.md 6).
    const attachments = new AttachmentsBucket(this, 'Attachments', { config });

    const functions = new ApiFunctions(this, 'Functions', {
      config,
      table,
      bucket: attachments.bucket,
      indexNames: TABLE_DEFINITION.globalSecondaryIndexes.map((gsi) => gsi.name),
      signingKeys,
      projectRoot,
    });

    // Permanent deletes hand their bulk work to the purge worker (before the routes: they need its queue).
    if (routes.some((r) => (r as RouteDef).purges))
      new PurgeWorker(this, 'Purge', { config, table, functions });

    // Live subscriptions: a WebSocket API the stream processor fans the change log out to (data-flow.md 5).
    const live = new WebSocketApi(this, 'Live', {
      config,
      table,
      functions,
      stageName: 'live',
      name: 'live',
      description: 'Live subscriptions to the change log (data-flow.md 5)',
      entry: 'workers/live-socket.ts',
      functionDescription: 'Live socket: connects, subscribes and disconnects WebSocket clients',
      routeSelectionExpression: '$request.body.action',
    });
    // The realtime socket Teable's web app speaks (ShareDB, contract web-app §2): every message to
    // `$default`; the stream processor sends the ops. Its URL ends in `/socket`, as the web app's.
    const socket = new WebSocketApi(this, 'Socket', {
      config,
      table,
      functions,
      stageName: 'socket',
      name: 'socket',
      description: "The realtime socket (ShareDB's protocol) of Teable's web app",
      entry: 'workers/socket.ts',
      functionDescription: 'Realtime socket: ShareDB sessions, kept between messages',
      routeSelectionExpression: '$request.body.a',
    });

    // Webhooks deliver the change log's entries (data-flow.md 4); before the stream processor and
    // the routes, which wake them.
    new WebhookSender(this, 'Webhooks', { config, table, functions });

    // Interrupted large writes are finished or undone within two minutes, whatever stopped them.
    new RepairWorker(this, 'Repair', { config, table, functions });
    // The change log, written from the table's stream (data-flow.md 1).
    const changes = new StreamProcessor(this, 'Changes', { config, table, functions });

    // The stage is created by hand because HttpApi's automatic default stage takes no throttling.
    const api = new HttpApi(this, 'Api', {
      apiName: `workspace-api-${config.stage}`,
      createDefaultStage: false,
      // API Gateway answers preflights and adds the CORS headers to every answer (the Lambdas add none).
      corsPreflight: corsPreflightFor(config),
      // A request no route takes: 405 with Allow for a known path, else 404, with the error body.
      defaultIntegration: new HttpLambdaIntegration(
        'UnmatchedIntegration',
        functions.unmatchedRequests(this),
      ),
    });
    const stage = api.addStage('DefaultStage', {
      stageName: '$default',
      autoDeploy: true,
      throttle: config.throttle,
    });
    // Access logs, alarms and a dashboard per stage.
    new Monitoring(this, 'Monitoring', { config, api, stage, table, processor: changes.processor });

    for (const [index, group] of groupRoutes(routes)) {
      new RouteStack(this, routeStackId(index), { config, api, functions, routes: group, index });
    }

    // One origin for Teable's web app (contract web-app §3): where the stage names the web app's origin.
    if (config.webOrigin) {
      const web = new WebDistribution(this, 'Web', { config, httpApiId: api.apiId, socket });
      new CfnOutput(this, 'WebUrl', { value: web.url });
    }

    new CfnOutput(this, 'ApiUrl', { value: `${api.apiEndpoint}${API_PREFIX}` });
    new CfnOutput(this, 'TableName', { value: table.tableName });
    new CfnOutput(this, 'LiveUrl', { value: live.url });
    new CfnOutput(this, 'SocketUrl', { value: socket.url });
    new CfnOutput(this, 'AttachmentsBucket', { value: attachments.bucket.bucketName });
  }
}
