import { Duration, Stack } from 'aws-cdk-lib';
import { CfnApi, CfnIntegration, CfnRoute, CfnStage } from 'aws-cdk-lib/aws-apigatewayv2';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import * as iam from 'aws-cdk-lib/aws-iam';
import type { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import { Construct } from 'constructs';
import type { ApiFunctions } from './api-construct.ts';
import { LAMBDA_BUNDLING } from './bundling.ts';
import type { StageConfig } from './stage-config.ts';

export interface WebSocketApiProps {
  config: StageConfig;
  table: ITable;
  functions: ApiFunctions;
  /** The stage, and the last part of the URL: `live`, `socket`. */
  stageName: string;
  /** The API's name, after `workspace-api-`, and what it is for. */
  name: string;
  description: string;
  /** The Lambda of its three routes (under functions/), and what it does. */
  entry: string;
  functionDescription: string;
  /** Which message goes to which route (`$default` takes the rest). */
  routeSelectionExpression: string;
}

/**
 * A WebSocket API of API Gateway whose `$connect`, `$disconnect` and `$default` routes call one
 * Lambda, on one stage: `/api/live`'s (data-flow.md 5, `functions/workers/live-socket.ts`) and
 * the realtime socket's (contract web-app §2, `functions/workers/socket.ts`). The Lambda and the
 * stream processor (which fans the change log out) may post to and close its connections
 * (`execute-api:ManageConnections` on this API's stage only); the processor gets the stage's
 * callback URL (`callbackUrl`) and that grant (`manage`).
 */
export class WebSocketApi extends Construct {
  readonly api: CfnApi;
  readonly stage: CfnStage;
  readonly socket: NodejsFunction;
  /** `wss://…/<stage>`, what clients connect to. */
  readonly url: string;
  /** `https://…/<stage>`, where the service posts to connections. */
  readonly callbackUrl: string;
  /** The grant to post to and close its connections. */
  readonly manage: iam.PolicyStatement;
  /** `<id>.execute-api.<region>.<suffix>`, the API's host (a CloudFront origin). */
  readonly host: string;
  /** The variable that gives a Lambda the callback URL: `LIVE_CALLBACK_URL`, `SOCKET_CALLBACK_URL`. */
  readonly callbackVariable: string;

  constructor(scope: Construct, id: string, props: WebSocketApiProps) {
    super(scope, id);
    const { config, table, functions, stageName } = props;
    this.callbackVariable = `${stageName.toUpperCase()}_CALLBACK_URL`;
    // Level-1 resources: the level-2 WebSocketApi of this CDK version gives `$default` a logical
    // id twice (its route and the route's own resource)
    this.api = new CfnApi(this, 'Api', {
      name: `workspace-api-${props.name}-${config.stage}`,
      description: props.description,
      protocolType: 'WEBSOCKET',
      routeSelectionExpression: props.routeSelectionExpression,
    });
    const stack = Stack.of(this);
    this.host = `${this.api.ref}.execute-api.${stack.region}.${stack.urlSuffix}`;
    this.url = `wss://${this.host}/${stageName}`;
    this.callbackUrl = `https://${this.host}/${stageName}`;
    this.manage = new iam.PolicyStatement({
      sid: `Manage${id}Connections`,
      actions: ['execute-api:ManageConnections'],
      resources: [
        Stack.of(this).formatArn({
          service: 'execute-api',
          resource: this.api.ref,
          resourceName: `${stageName}/*/@connections/*`,
        }),
      ],
    });
    const role = new iam.Role(this, 'Role', {
      assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com'),
      description: `Workspace API ${config.stage}: the ${props.name} WebSocket routes`,
      inlinePolicies: {
        // it reads tokens and sessions (and verifies temporary tokens: the signing keys), the log,
        // the API's reads, and writes its connections
        Access: new iam.PolicyDocument({ statements: [...functions.tableStatements('write'), this.manage] }),
      },
    });
    this.socket = functions.lambda(this, 'Socket', {
      entry: props.entry,
      description: props.functionDescription,
      timeout: Duration.seconds(29),
      role,
      bundling: LAMBDA_BUNDLING,
      environment: {
        TABLE_NAME: table.tableName,
        ...functions.signingEnvironment(),
        [this.callbackVariable]: this.callbackUrl,
      },
    });

    const integration = new CfnIntegration(this, 'Integration', {
      apiId: this.api.ref,
      integrationType: 'AWS_PROXY',
      integrationUri: `arn:${stack.partition}:apigateway:${stack.region}:lambda:path/2015-03-31/functions/${this.socket.functionArn}/invocations`,
    });
    for (const [key, routeId] of [
      ['$connect', 'Connect'],
      ['$disconnect', 'Disconnect'],
      ['$default', 'Default'],
    ] as const)
      new CfnRoute(this, routeId, {
        apiId: this.api.ref,
        routeKey: key,
        target: `integrations/${integration.ref}`,
      });
    this.stage = new CfnStage(this, 'Stage', {
      apiId: this.api.ref,
      stageName,
      autoDeploy: true,
    });
    functions.websocketApis.push(this);
    this.socket.addPermission(`InvokedBy${id}Api`, {
      principal: new iam.ServicePrincipal('apigateway.amazonaws.com'),
      sourceArn: stack.formatArn({ service: 'execute-api', resource: this.api.ref, resourceName: '*' }),
    });
  }
}
