import { Duration, Stack } from 'aws-cdk-lib';
import { CfnApi, CfnIntegration, CfnRoute, CfnStage } from 'aws-cdk-lib/aws-apigatewayv2';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import * as iam from 'aws-cdk-lib/aws-iam';
import type { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import { Construct } from 'constructs';
import type { ApiFunctions } from './api-construct.ts';
import { LAMBDA_BUNDLING } from './bundling.ts';
import type { StageConfig } from './stage-config.ts';

export interface LiveApiProps {
  config: StageConfig;
  table: ITable;
  functions: ApiFunctions;
}

/** The stage of the WebSocket API: `wss://<id>.execute-api.<region>.amazonaws.com/live`. */
export const LIVE_STAGE = 'live';

/**
 * Live subscriptions in the cloud (data-flow.md 5): an API Gateway WebSocket API whose `$connect`,
 * `$disconnect` and `$default` routes call one Lambda (`functions/workers/live-socket.ts`), on a
 * stage `live`. The Lambda and the stream processor (which fans the change log out) may post to
 * and close its connections (`execute-api:ManageConnections` on this API's stage only); the
 * processor gets the stage's callback URL as `LIVE_CALLBACK_URL` (ApiFunctions.live).
 */
export class LiveApi extends Construct {
  readonly api: CfnApi;
  readonly stage: CfnStage;
  readonly socket: NodejsFunction;
  /** `wss://…/live`, what clients connect to. */
  readonly url: string;
  /** `https://…/live`, where the service posts to connections. */
  readonly callbackUrl: string;

  constructor(scope: Construct, id: string, props: LiveApiProps) {
    super(scope, id);
    const { config, table, functions } = props;
    // Level-1 resources: the level-2 WebSocketApi of this CDK version gives `$default` a logical
    // id twice (its route and the route's own resource)
    this.api = new CfnApi(this, 'Api', {
      name: `workspace-api-live-${config.stage}`,
      description: 'Live subscriptions to the change log (data-flow.md 5)',
      protocolType: 'WEBSOCKET',
      routeSelectionExpression: '$request.body.action',
    });
    const stack = Stack.of(this);
    const host = `${this.api.ref}.execute-api.${stack.region}.${stack.urlSuffix}`;
    this.url = `wss://${host}/${LIVE_STAGE}`;
    this.callbackUrl = `https://${host}/${LIVE_STAGE}`;
    const manage = new iam.PolicyStatement({
      sid: 'ManageLiveConnections',
      actions: ['execute-api:ManageConnections'],
      resources: [
        Stack.of(this).formatArn({
          service: 'execute-api',
          resource: this.api.ref,
          resourceName: `${LIVE_STAGE}/*/@connections/*`,
        }),
      ],
    });
    const role = new iam.Role(this, 'Role', {
      assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com'),
      description: `Workspace API ${config.stage}: the live WebSocket routes`,
      inlinePolicies: {
        // it reads tokens (and verifies temporary ones: the signing keys), the log, and writes its connections
        Access: new iam.PolicyDocument({ statements: [...functions.tableStatements('write'), manage] }),
      },
    });
    this.socket = functions.lambda(this, 'Socket', {
      entry: 'workers/live-socket.ts',
      description: 'Live socket: connects, subscribes and disconnects WebSocket clients',
      timeout: Duration.seconds(29),
      role,
      bundling: LAMBDA_BUNDLING,
      environment: {
        TABLE_NAME: table.tableName,
        ...functions.signingEnvironment(),
        LIVE_CALLBACK_URL: this.callbackUrl,
      },
    });

    const integration = new CfnIntegration(this, 'Integration', {
      apiId: this.api.ref,
      integrationType: 'AWS_PROXY',
      integrationUri: `arn:${stack.partition}:apigateway:${stack.region}:lambda:path/2015-03-31/functions/${this.socket.functionArn}/invocations`,
    });
    for (const [key, id] of [
      ['$connect', 'Connect'],
      ['$disconnect', 'Disconnect'],
      ['$default', 'Default'],
    ] as const)
      new CfnRoute(this, id, {
        apiId: this.api.ref,
        routeKey: key,
        target: `integrations/${integration.ref}`,
      });
    this.stage = new CfnStage(this, 'Stage', {
      apiId: this.api.ref,
      stageName: LIVE_STAGE,
      autoDeploy: true,
    });
    this.socket.addPermission('InvokedByLiveApi', {
      principal: new iam.ServicePrincipal('apigateway.amazonaws.com'),
      sourceArn: stack.formatArn({ service: 'execute-api', resource: this.api.ref, resourceName: '*' }),
    });
    functions.live = { callbackUrl: this.callbackUrl, manage };
  }
}
