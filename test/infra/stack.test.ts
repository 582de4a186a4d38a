import {
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { App, type CfnResource, NestedStack } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { READ_ACTIONS, READ_ROLE_UPDATABLE_ATTRIBUTES } from '#infra/api-construct.ts';
import { createApp, PROJECT_ROOT } from '#infra/create-app.ts';
import { LAMBDA_ENV_VARS, LOCAL_ONLY_ENV_VARS } from '#infra/lambda-environment.ts';
import { ACCESS_LOG_FORMAT } from '#infra/monitoring.ts';
import { POWERTOOLS_LAYER_PARAMETER, POWERTOOLS_VERSION } from '#infra/observability.ts';
import {
  groupRoutes,
  MAX_ROUTES_PER_STACK,
  RESOURCES_PER_ROUTE,
  ROUTE_STACK_COUNT,
  routeStackId,
  routeStackIndex,
} from '#infra/route-stacks.ts';
import { WorkspaceApiStack } from '#infra/stack.ts';
import { stackNameFor, stageConfig } from '#infra/stage-config.ts';
import { parseWebOrigin } from '#infra/web-distribution.ts';
import { TABLE_DEFINITION } from '#shared/db/table-definition.ts';
import { API_PREFIX, ROUTES, type RouteDef } from '#shared/routes.ts';

// The feature flags of cdk.json, so the tests see the template `cdk synth` produces; plus the official
// switch that skips asset bundling (esbuild for every handler would make each synth take seconds).
const CDK_CONTEXT = {
  ...(JSON.parse(readFileSync(path.join(PROJECT_ROOT, 'cdk.json'), 'utf8')) as { context: object }).context,
  'aws:cdk:bundling-stacks': [],
};

type Resource = { Type: string; Properties?: Record<string, unknown> } & Record<string, unknown>;
type TemplateJson = {
  Resources: Record<string, Resource>;
  Parameters?: Record<string, unknown>;
  Outputs?: Record<string, unknown>;
} & Record<string, unknown>;

/** A synthesized stage: the root template, each nested stack's template, and the whole API as one. */
interface Synthesized {
  stack: WorkspaceApiStack;
  /** The root template without the WebSocket APIs (`live`, `socket`): the HTTP API's assertions read it. */
  root: Template;
  /** The root template as deployed, the WebSocket APIs included (resource counts). */
  rootAll: Template;
  /** The live WebSocket API's resources (logical ids `Live…`). */
  live: Template;
  /** The realtime socket's WebSocket API's resources (logical ids `Socket…`). */
  socket: Template;
  /** Each nested stack with its template and its logical id in the root. */
  nested: { stack: NestedStack; template: Template; logicalId: string }[];
  /**
   * The root and the nested templates merged into one, each nested-stack parameter replaced by what
   * the root passes it (so a function's `TABLE_NAME` reads `{Ref: <table>}` as in a single stack),
   * the AWS::CloudFormation::Stack resources left out: the assertions on the API as a whole.
   */
  whole: Template;
}

/** `value` with every `{Ref: <parameter>}` replaced by the parameter's value. */
const substitute = (value: unknown, parameters: Record<string, unknown>): unknown => {
  if (Array.isArray(value)) return value.map((v) => substitute(v, parameters));
  if (value && typeof value === 'object') {
    const ref = (value as { Ref?: unknown }).Ref;
    if (typeof ref === 'string' && Object.keys(value).length === 1 && ref in parameters)
      return parameters[ref];
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, substitute(v, parameters)]));
  }
  return value;
};

/** The WebSocket APIs' constructs: their resources' logical ids start with these. */
const WEBSOCKET_PREFIXES = ['Live', 'Socket'];

/** A template's resources of one WebSocket API (`Live…`, `Socket…`), or (no prefix) the others. */
const splitLive = (json: TemplateJson, prefix?: string): Template =>
  Template.fromJSON({
    ...json,
    Resources: Object.fromEntries(
      Object.entries(json.Resources).filter(([id]) =>
        prefix ? id.startsWith(prefix) : !WEBSOCKET_PREFIXES.some((p) => id.startsWith(p)),
      ),
    ),
  });

const synthStack = (stack: WorkspaceApiStack): Synthesized => {
  const rootAll = Template.fromStack(stack);
  const rootAllJson = rootAll.toJSON() as TemplateJson;
  const root = splitLive(rootAllJson);
  const rootJson = root.toJSON() as TemplateJson;
  const nested = stack.node
    .findAll()
    .filter((c): c is NestedStack => c instanceof NestedStack)
    .map((nestedStack) => ({
      stack: nestedStack,
      template: Template.fromStack(nestedStack),
      logicalId: stack.resolve((nestedStack.nestedStackResource as CfnResource).logicalId) as string,
    }));
  const resources: Record<string, Resource> = Object.fromEntries(
    Object.entries(rootJson.Resources).filter(([, r]) => r.Type !== 'AWS::CloudFormation::Stack'),
  );
  for (const { template, logicalId } of nested) {
    const json = template.toJSON() as TemplateJson;
    const passed = (rootJson.Resources[logicalId]?.Properties?.Parameters ?? {}) as Record<string, unknown>;
    // Every parameter of a nested stack is a reference CDK passes down from the root.
    const missing = Object.keys(json.Parameters ?? {}).filter((name) => !(name in passed));
    if (missing.length) throw new Error(`nested stack ${logicalId} gets no value for ${missing.join(', ')}`);
    for (const [id, resource] of Object.entries(json.Resources)) {
      if (id in resources) throw new Error(`logical id ${id} in two templates`);
      resources[id] = substitute(resource, passed) as Resource;
    }
  }
  return {
    stack,
    root,
    rootAll,
    live: splitLive(rootAllJson, 'Live'),
    socket: splitLive(rootAllJson, 'Socket'),
    nested,
    whole: Template.fromJSON({ ...rootJson, Resources: resources }),
  };
};

const synthAll = (stage: string, routes?: readonly RouteDef[], projectRoot = PROJECT_ROOT): Synthesized => {
  const app = new App({ context: CDK_CONTEXT });
  const stack = new WorkspaceApiStack(app, stackNameFor(stage), {
    config: stageConfig(stage),
    projectRoot,
    routes,
  });
  return synthStack(stack);
};

/** The whole API of a stage as one template (see `Synthesized.whole`). */
const synth = (stage: string, routes?: readonly RouteDef[], projectRoot = PROJECT_ROOT): Template =>
  synthAll(stage, routes, projectRoot).whole;

type Statement = {
  Sid?: string;
  Action: string | string[];
  Condition?: Record<string, unknown>;
  Resource: unknown;
};

const resourcesOf = (template: Template): Record<string, Resource> =>
  (template.toJSON() as { Resources: Record<string, Resource> }).Resources;

const logicalIdsOf = (template: Template, type: string): string[] =>
  Object.entries(resourcesOf(template))
    .filter(([, r]) => r.Type === type)
    .map(([id]) => id);

const actionsOf = (statement: Statement): string[] =>
  Array.isArray(statement.Action) ? statement.Action : [statement.Action];

/** Every IAM statement in the template: role inline policies, policy resources, managed policies. */
const allStatements = (template: Template): Statement[] =>
  Object.values(resourcesOf(template)).flatMap((r) => {
    const props = r.Properties ?? {};
    const docs = [
      ...((props.Policies as { PolicyDocument: { Statement: Statement[] } }[] | undefined)?.map(
        (p) => p.PolicyDocument,
      ) ?? []),
      ...(props.PolicyDocument ? [props.PolicyDocument as { Statement: Statement[] }] : []),
    ];
    return docs.flatMap((d) => d.Statement);
  });

const roleStatements = (template: Template, roleLogicalId: string): Statement[] => {
  const role = resourcesOf(template)[roleLogicalId];
  const policies = (role?.Properties?.Policies ?? []) as { PolicyDocument: { Statement: Statement[] } }[];
  return policies.flatMap((p) => p.PolicyDocument.Statement);
};

/** `GetAtt [id, Arn]` or `Ref id` → id. */
const refId = (value: unknown): string => {
  const v = value as { Ref?: string; 'Fn::GetAtt'?: [string, string] };
  const id = v.Ref ?? v['Fn::GetAtt']?.[0];
  if (!id) throw new Error(`not a reference: ${JSON.stringify(value)}`);
  return id;
};

/** For every API route key, the Lambda it invokes (route → integration → function); `$default` too when asked. */
const functionByRouteKey = (template: Template, withDefault = false): Map<string, Resource> => {
  const resources = resourcesOf(template);
  const result = new Map<string, Resource>();
  for (const route of Object.values(resources).filter((r) => r.Type === 'AWS::ApiGatewayV2::Route')) {
    if (route.Properties?.RouteKey === '$default' && !withDefault) continue;
    const target = route.Properties?.Target as { 'Fn::Join': [string, [string, unknown]] };
    const integration = resources[refId(target['Fn::Join'][1][1])];
    const fn = resources[refId(integration?.Properties?.IntegrationUri)];
    if (!fn) throw new Error(`route ${String(route.Properties?.RouteKey)} reaches no function`);
    result.set(route.Properties?.RouteKey as string, fn);
  }
  return result;
};

const routeKey = (route: RouteDef): string => `${route.method} ${API_PREFIX}${route.path}`;
/** Every API route key of a route: its own, and `HEAD` beside it where the route answers it too. */
const routeKeys = (route: RouteDef): string[] =>
  route.head ? [routeKey(route), `HEAD ${API_PREFIX}${route.path}`] : [routeKey(route)];
/** A HEAD route beside its GET: the route and its permission to invoke the same function. */
const EXTRA_PER_HEAD = 2;
/** API routes beyond one per route: the `HEAD` routes beside their `GET`. */
const extraRoutes = (routes: readonly RouteDef[]): number => routes.filter((r) => r.head).length;

/**
 * The Lambdas that are not routes of the table: the purge and repair workers, the stream
 * processor, the webhook sender, and the answerer of requests no route takes (`$default`).
 */
const WORKERS = 5;

/** What a template may hold: CloudFormation allows 500, the split keeps each well under it. */
const TEMPLATE_BUDGET = 300;

const resourceCount = (template: Template): number => Object.keys(resourcesOf(template)).length;

/** Resource counts of the root and of each nested stack, by construct id. */
const countsOf = ({ rootAll, nested }: Synthesized): Record<string, number> => ({
  root: resourceCount(rootAll),
  ...Object.fromEntries(nested.map((n) => [n.stack.node.id, resourceCount(n.template)])),
});

/** The route types a nested stack holds: 4 resources per route. */
const ROUTE_RESOURCE_TYPES = [
  'AWS::ApiGatewayV2::Integration',
  'AWS::ApiGatewayV2::Route',
  'AWS::Lambda::Function',
  'AWS::Lambda::Permission',
];

/** Checks that the routes went where `routeStackIndex` says, and only route resources went there. */
const expectRoutesSplit = (synthesized: Synthesized, routes: readonly RouteDef[]): void => {
  const groups = groupRoutes(routes);
  expect(synthesized.nested.map((n) => n.stack.node.id).sort()).toEqual(
    [...groups.keys()].map(routeStackId).sort(),
  );
  for (const { stack, template } of synthesized.nested) {
    const index = [...groups.keys()].find((i) => routeStackId(i) === stack.node.id) as number;
    const group = groups.get(index) ?? [];
    expect([...functionByRouteKey(template).keys()].sort(), stack.node.id).toEqual(
      group.flatMap(routeKeys).sort(),
    );
    const types = Object.values(resourcesOf(template)).map((r) => r.Type);
    expect([...new Set(types)].sort()).toEqual(ROUTE_RESOURCE_TYPES);
    // a HEAD route is one more route (and its permission to invoke) on the same function
    expect(types).toHaveLength(RESOURCES_PER_ROUTE * group.length + EXTRA_PER_HEAD * extraRoutes(group));
  }
  // The root keeps what is shared, and no route but `$default` (requests no route takes).
  const root = synthesized.root;
  root.resourceCountIs('AWS::CloudFormation::Stack', groups.size);
  root.resourceCountIs('AWS::ApiGatewayV2::Route', 1);
  root.hasResourceProperties('AWS::ApiGatewayV2::Route', { RouteKey: '$default' });
  root.resourceCountIs('AWS::ApiGatewayV2::Integration', 1);
  for (const type of ['AWS::DynamoDB::Table', 'AWS::SecretsManager::Secret']) root.resourceCountIs(type, 1);
  // the functions' log group and the stage's access log
  root.resourceCountIs('AWS::Logs::LogGroup', 2);
  root.resourceCountIs('AWS::ApiGatewayV2::Api', 1);
  root.resourceCountIs('AWS::ApiGatewayV2::Stage', 1);
};

describe('WorkspaceApiStack (dev)', () => {
  const synthesized = synthAll('dev');
  const template = synthesized.whole;
  const [readRoleId] = logicalIdsOf(template, 'AWS::IAM::Role').filter((id) => id.includes('ReadRole'));
  const [writeRoleId] = logicalIdsOf(template, 'AWS::IAM::Role').filter((id) => id.includes('WriteRole'));
  const [mailRoleId] = logicalIdsOf(template, 'AWS::IAM::Role').filter((id) => id.includes('MailRole'));
  const [sessionsRoleId] = logicalIdsOf(template, 'AWS::IAM::Role').filter((id) =>
    id.includes('SessionsRole'),
  );
  const [purgeRoleId] = logicalIdsOf(template, 'AWS::IAM::Role').filter((id) =>
    id.startsWith('FunctionsPurgeRole'),
  );
  const [workerRoleId] = logicalIdsOf(template, 'AWS::IAM::Role').filter((id) => id.startsWith('PurgeRole'));
  const [repairRoleId] = logicalIdsOf(template, 'AWS::IAM::Role').filter((id) => id.startsWith('RepairRole'));
  const [filesRoleId] = logicalIdsOf(template, 'AWS::IAM::Role').filter((id) => id.includes('FilesRole'));
  const [exportRoleId] = logicalIdsOf(template, 'AWS::IAM::Role').filter((id) => id.includes('ExportRole'));
  const [changesRoleId] = logicalIdsOf(template, 'AWS::IAM::Role').filter((id) =>
    id.startsWith('ChangesRole'),
  );
  const [webhooksRoleId] = logicalIdsOf(template, 'AWS::IAM::Role').filter((id) =>
    id.startsWith('FunctionsWebhooksRole'),
  );
  const [senderRoleId] = logicalIdsOf(template, 'AWS::IAM::Role').filter((id) =>
    id.startsWith('WebhooksRole'),
  );
  /** The functions behind API routes (the purge worker is not one). */
  const routeFunctions = () => [...functionByRouteKey(template).values()];
  /** The repair worker's function. */
  const [repairWorkerId] = Object.entries(template.findResources('AWS::Lambda::Function'))
    .filter(([, fn]) => String(fn.Properties?.Description).startsWith('Repair worker'))
    .map(([id]) => id);

  it('has one API route per ROUTES entry, with the /api route key, and one Lambda per route (plus the purge and repair workers, the stream processor and the webhook sender)', () => {
    template.resourceCountIs('AWS::ApiGatewayV2::Route', ROUTES.length + extraRoutes(ROUTES) + 1); // and $default
    template.resourceCountIs('AWS::Lambda::Function', ROUTES.length + WORKERS);
    const routes = functionByRouteKey(template);
    expect([...routes.keys()].sort()).toEqual(ROUTES.flatMap(routeKeys).sort());
    expect(routes.get('HEAD /api/health')).toBe(routes.get('GET /api/health'));
    // Every route reaches a function of its own.
    expect(new Set(routes.values()).size).toBe(ROUTES.length);
    template.hasResourceProperties('AWS::ApiGatewayV2::Route', { RouteKey: 'GET /api/space' });
  });

  it('sends a request no route takes to one Lambda that may only log (405 with Allow, else 404)', () => {
    const fn = functionByRouteKey(template, true).get('$default');
    expect(fn?.Properties).toMatchObject({ Runtime: 'nodejs22.x', Architectures: ['arm64'], Timeout: 5 });
    const roleId = refId((fn?.Properties as { Role?: unknown } | undefined)?.Role);
    const role = resourcesOf(template)[roleId];
    const statements = JSON.stringify(role?.Properties?.Policies);
    expect(statements).toContain('logs:PutLogEvents');
    expect(statements).not.toMatch(/dynamodb:|secretsmanager:|s3:|sqs:/);
  });

  it('runs every function on nodejs22.x, arm64, with the shared JSON log group', () => {
    const [logGroupId] = logicalIdsOf(template, 'AWS::Logs::LogGroup').filter(
      (id) => !id.startsWith('Monitoring'),
    );
    for (const fn of routeFunctions()) {
      expect(fn.Properties).toMatchObject({
        Runtime: 'nodejs22.x',
        Architectures: ['arm64'],
        Handler: 'index.handler',
        MemorySize: 1024,
        Timeout: 10,
        LoggingConfig: { LogFormat: 'JSON', LogGroup: { Ref: logGroupId } },
      });
    }
    // One log group for all: none per function (the other one is the stage's access log).
    template.resourceCountIs('AWS::Logs::LogGroup', 2);
    template.hasResourceProperties('AWS::Logs::LogGroup', { RetentionInDays: 7 });
  });

  it('traces every function with X-Ray and gives it the Powertools layer of the pinned version', () => {
    const functions = Object.values(template.findResources('AWS::Lambda::Function'));
    expect(functions).toHaveLength(ROUTES.length + WORKERS);
    for (const fn of functions) {
      expect(fn.Properties.TracingConfig).toEqual({ Mode: 'Active' });
      expect(fn.Properties.Layers).toEqual([`{{resolve:ssm:${POWERTOOLS_LAYER_PARAMETER}}}`]);
    }
    // the layer holds exactly what the tests ran: the version is pinned, not a range
    expect(POWERTOOLS_VERSION).toMatch(/^\d+\.\d+\.\d+$/);
    expect(POWERTOOLS_LAYER_PARAMETER).toBe(
      `/aws/service/powertools/typescript/generic/all/${POWERTOOLS_VERSION}`,
    );
    // every role may send traces: in its inline policy, with no extra policy resource
    for (const id of [
      readRoleId,
      writeRoleId,
      mailRoleId,
      purgeRoleId,
      workerRoleId,
      repairRoleId,
      changesRoleId,
      filesRoleId,
      webhooksRoleId,
      senderRoleId,
    ])
      expect(roleStatements(template, id as string)).toContainEqual(
        expect.objectContaining({
          Action: ['xray:PutTelemetryRecords', 'xray:PutTraceSegments'],
          Resource: '*',
        }),
      );
    template.resourceCountIs('AWS::IAM::Policy', 0);
  });

  it('gives every function the environment the handlers read', () => {
    const [tableId] = logicalIdsOf(template, 'AWS::DynamoDB::Table');
    const [secretId] = logicalIdsOf(template, 'AWS::SecretsManager::Secret');
    const [bucketId] = logicalIdsOf(template, 'AWS::S3::Bucket');
    const byKey = functionByRouteKey(template);
    const [queueId] = logicalIdsOf(template, 'AWS::SQS::Queue').filter((id) => id.startsWith('PurgeQueue'));
    const [webhookQueueId] = logicalIdsOf(template, 'AWS::SQS::Queue').filter((id) =>
      id.startsWith('WebhooksQueue'),
    );
    for (const route of ROUTES) {
      const fn = byKey.get(routeKey(route)) as Resource;
      const env = (fn.Properties?.Environment as { Variables: unknown } | undefined)?.Variables;
      expect(env, routeKey(route)).toEqual({
        // routes that redeliver or enable a webhook wake the base's webhooks
        WEBHOOK_QUEUE_URL: (route as RouteDef).webhooks ? { Ref: webhookQueueId } : '',
        // a listing that hands its order to the repair worker wakes it; any route may list
        REPAIR_WORKER_FUNCTION: { Ref: repairWorkerId },
        LIVE_CALLBACK_URL: '',
        SOCKET_CALLBACK_URL: '',
        ...((route as RouteDef).purges
          ? { PURGE_QUEUE_URL: { Ref: queueId }, PURGE_DELAY_SECONDS: '30' }
          : (route as RouteDef).files
            ? // routes that confirm files send thumbnail jobs, exports hand large ones over, at once
              { PURGE_QUEUE_URL: { Ref: queueId }, PURGE_DELAY_SECONDS: '' }
            : { PURGE_QUEUE_URL: '', PURGE_DELAY_SECONDS: '' }),
        SIGNING_KEYS_FILE: '',
        LOCAL_OUTBOX_DIR: '',
        AWS_ENDPOINT_URL_DYNAMODB: '',
        TABLE_NAME: { Ref: tableId },
        STAGE: 'dev',
        SIGNING_KEYS_SECRET_ARN: { Ref: secretId },
        JWT_ISSUER: 'workspace-api-dev',
        JWT_AUDIENCE: 'workspace-api-dev',
        MAIL_FROM: stageConfig('dev').mailFrom,
        CHANGE_LOG_DAYS: '',
        IMPORT_PACING: '',
        ATTACHMENTS_BUCKET: { Ref: bucketId },
        ATTACHMENT_MAX_BYTES: '',
        AWS_ENDPOINT_URL_S3: '',
        // sessions: Secure cookies when deployed, no other web origin, sign-up closed by default
        COOKIE_SECURE: 'true',
        WEB_ORIGIN: '',
        SIGNUP: 'closed',
        POWERTOOLS_SERVICE_NAME: 'workspace-api',
        POWERTOOLS_LOG_LEVEL: 'DEBUG',
        AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
        NODE_OPTIONS: '--enable-source-maps',
      });
    }
  });

  it('declares every variable the code reads on every function of every template, the local-only ones empty (sam local --env-vars)', () => {
    const templates = [
      { name: 'root', template: synthesized.root },
      ...synthesized.nested.map(({ stack, template }) => ({ name: stack.node.id, template })),
    ];
    let functions = 0;
    for (const { name, template } of templates) {
      for (const [id, fn] of Object.entries(template.findResources('AWS::Lambda::Function'))) {
        const env = (fn.Properties?.Environment as { Variables?: Record<string, unknown> } | undefined)
          ?.Variables;
        expect(Object.keys(env ?? {}).sort(), `${name}/${id}`).toEqual([...LAMBDA_ENV_VARS].sort());
        for (const local of LOCAL_ONLY_ENV_VARS) expect(env?.[local], `${name}/${id} ${local}`).toBe('');
        functions++;
      }
    }
    // The workers in the root, a function per route in the nested stacks.
    expect(functions).toBe(ROUTES.length + WORKERS);
  });

  it('gives the workers empty signing-key, token and mail variables: they read none of them', () => {
    const workers = Object.values(synthesized.root.findResources('AWS::Lambda::Function'));
    expect(workers).toHaveLength(WORKERS);
    for (const worker of workers)
      expect(worker.Properties.Environment.Variables).toMatchObject({
        SIGNING_KEYS_SECRET_ARN: '',
        JWT_ISSUER: '',
        JWT_AUDIENCE: '',
        MAIL_FROM: '',
        STAGE: 'dev',
      });
  });

  it('builds the table from TABLE_DEFINITION: string pk/sk, on demand, TTL, its change stream, the same GSIs', () => {
    template.resourceCountIs('AWS::DynamoDB::Table', 1);
    const table = Object.values(template.findResources('AWS::DynamoDB::Table'))[0]?.Properties;
    expect(table.KeySchema).toEqual([
      { AttributeName: TABLE_DEFINITION.partitionKey, KeyType: 'HASH' },
      { AttributeName: TABLE_DEFINITION.sortKey, KeyType: 'RANGE' },
    ]);
    expect(table.AttributeDefinitions).toEqual(
      expect.arrayContaining([
        { AttributeName: 'pk', AttributeType: 'S' },
        { AttributeName: 'sk', AttributeType: 'S' },
      ]),
    );
    expect(table.BillingMode).toBe('PAY_PER_REQUEST');
    expect(table.TimeToLiveSpecification).toEqual({ AttributeName: 'expiresAt', Enabled: true });
    expect(table.StreamSpecification).toEqual({ StreamViewType: 'NEW_AND_OLD_IMAGES' });
    const gsis = (table.GlobalSecondaryIndexes ?? []) as {
      IndexName: string;
      KeySchema: { AttributeName: string; KeyType: string }[];
    }[];
    expect(
      gsis.map((g) => ({
        name: g.IndexName,
        partitionKey: g.KeySchema.find((k) => k.KeyType === 'HASH')?.AttributeName,
        sortKey: g.KeySchema.find((k) => k.KeyType === 'RANGE')?.AttributeName,
      })),
    ).toEqual(TABLE_DEFINITION.globalSecondaryIndexes);
  });

  it('lets dev resources be deleted, without PITR or deletion protection', () => {
    template.hasResource('AWS::DynamoDB::Table', {
      DeletionPolicy: 'Delete',
      Properties: Match.objectLike({
        DeletionProtectionEnabled: false,
        PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: false },
      }),
    });
    template.hasResource('AWS::SecretsManager::Secret', { DeletionPolicy: 'Delete' });
  });

  it('has CloudFormation generate the signing keys in the {current, k1} shape', () => {
    template.hasResourceProperties('AWS::SecretsManager::Secret', {
      GenerateSecretString: {
        SecretStringTemplate: JSON.stringify({ current: 'k1' }),
        GenerateStringKey: 'k1',
        PasswordLength: 64,
        ExcludePunctuation: true,
      },
    });
  });

  it('throttles the $default stage with the stage config', () => {
    const { rateLimit, burstLimit } = stageConfig('dev').throttle;
    template.resourceCountIs('AWS::ApiGatewayV2::Stage', 1);
    template.hasResourceProperties('AWS::ApiGatewayV2::Stage', {
      StageName: '$default',
      AutoDeploy: true,
      DefaultRouteSettings: { ThrottlingRateLimit: rateLimit, ThrottlingBurstLimit: burstLimit },
    });
  });

  it('answers CORS on the HTTP API, in the root stack, for any origin with the shared policy', () => {
    synthesized.root.hasResourceProperties('AWS::ApiGatewayV2::Api', {
      CorsConfiguration: {
        AllowOrigins: ['*'],
        AllowMethods: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'],
        AllowHeaders: ['Authorization', 'Content-Type', 'If-Match', 'Idempotency-Key', 'X-Request-Id'],
        ExposeHeaders: ['X-Request-Id', 'ETag', 'Retry-After'],
        MaxAge: 3600,
      },
    });
  });

  it('logs every request of the stage as one JSON line in a log group of its own', () => {
    const stages = synthesized.root.findResources('AWS::ApiGatewayV2::Stage');
    const stage = Object.values(stages)[0] as {
      Properties: { AccessLogSettings: { DestinationArn: unknown; Format: string } };
    };
    expect(JSON.parse(stage.Properties.AccessLogSettings.Format)).toEqual(ACCESS_LOG_FORMAT);
    const [logGroupId] = Object.keys(synthesized.root.findResources('AWS::Logs::LogGroup')).filter((id) =>
      id.startsWith('MonitoringAccessLogs'),
    );
    expect(stage.Properties.AccessLogSettings.DestinationArn).toEqual({ 'Fn::GetAtt': [logGroupId, 'Arn'] });
    synthesized.root.hasResourceProperties('AWS::Logs::LogGroup', { RetentionInDays: 7 });
  });

  it("alarms on the 5xx rate, p99 latency, DynamoDB throttling and the change capture's lag with the stage's thresholds, and has a dashboard", () => {
    const alarms = Object.values(synthesized.root.findResources('AWS::CloudWatch::Alarm')) as {
      Properties: Record<string, unknown>;
    }[];
    expect(alarms).toHaveLength(4);
    const { alarms: limits } = stageConfig('dev');
    const byThreshold = new Map(alarms.map((a) => [a.Properties.Threshold, a.Properties]));
    // the 5xx rate: a metric math expression over the API's 5xx and request counts
    const rate = byThreshold.get(limits.serverErrorPercent) as {
      Metrics: { Expression?: string; MetricStat?: { Metric: { MetricName: string } } }[];
    };
    expect(rate.Metrics.find((m) => m.Expression)?.Expression).toBe('100 * errors / MAX([requests, 1])');
    expect(rate.Metrics.flatMap((m) => m.MetricStat?.Metric.MetricName ?? []).sort()).toEqual([
      '5xx',
      'Count',
    ]);
    expect(byThreshold.get(limits.p99LatencyMs)).toMatchObject({
      MetricName: 'Latency',
      Namespace: 'AWS/ApiGateway',
      ExtendedStatistic: 'p99',
      EvaluationPeriods: limits.evaluationPeriods,
    });
    const throttles = byThreshold.get(0) as {
      Metrics: { MetricStat?: { Metric: { MetricName: string; Namespace: string } } }[];
    };
    expect(throttles.Metrics.some((m) => m.MetricStat?.Metric.MetricName === 'ThrottledRequests')).toBe(true);
    // the capture's lag: the stream processor's iterator age, at its maximum
    const [processorId] = Object.entries(synthesized.root.findResources('AWS::Lambda::Function')).find(
      ([, fn]) => String(fn.Properties?.Description).startsWith('Stream processor'),
    ) ?? [undefined];
    expect(byThreshold.get(limits.captureLagMs)).toMatchObject({
      MetricName: 'IteratorAge',
      Namespace: 'AWS/Lambda',
      Statistic: 'Maximum',
      Dimensions: [{ Name: 'FunctionName', Value: { Ref: processorId } }],
    });
    expect(stageConfig('prod').alarms.captureLagMs).toBeLessThan(limits.captureLagMs);
    for (const a of alarms) expect(a.Properties.TreatMissingData).toBe('notBreaching');
    synthesized.root.resourceCountIs('AWS::CloudWatch::Dashboard', 1);
    synthesized.root.hasResourceProperties('AWS::CloudWatch::Dashboard', {
      DashboardName: 'workspace-api-dev',
    });
    // prod pages sooner
    expect(stageConfig('prod').alarms.serverErrorPercent).toBeLessThan(limits.serverErrorPercent);
  });

  it('outputs the API URL with /api and the table name', () => {
    template.hasOutput('ApiUrl', {
      Value: { 'Fn::Join': ['', [{ 'Fn::GetAtt': [Match.anyValue(), 'ApiEndpoint'] }, '/api']] },
    });
    template.hasOutput('TableName', { Value: { Ref: Match.anyValue() } });
  });

  it('has exactly thirteen function roles: read, write, write plus sessions, write plus mail, write plus enqueue, write plus files, read plus exports, write plus waking webhooks, the purge and repair workers, the stream processor, the webhook sender, the answerer of unmatched requests', () => {
    template.resourceCountIs('AWS::IAM::Role', 13);
    expect(sessionsRoleId).toBeDefined();
    expect(webhooksRoleId).toBeDefined();
    expect(senderRoleId).toBeDefined();
    expect(filesRoleId).toBeDefined();
    expect(exportRoleId).toBeDefined();
    expect(repairRoleId).toBeDefined();
    expect(changesRoleId).toBeDefined();
    expect(readRoleId).toBeDefined();
    expect(writeRoleId).toBeDefined();
    expect(mailRoleId).toBeDefined();
    expect(purgeRoleId).toBeDefined();
    expect(workerRoleId).toBeDefined();
    // Grants are inline in the roles: no extra policy resources.
    template.resourceCountIs('AWS::IAM::Policy', 0);
  });

  it('has no IAM statement with a wildcard action (but the bucket policy that denies anything without TLS)', () => {
    const actions = allStatements(template)
      .filter((s) => !((s as { Effect?: string }).Effect === 'Deny'))
      .flatMap(actionsOf);
    expect(actions.length).toBeGreaterThan(0);
    expect(actions.filter((a) => a.includes('*'))).toEqual([]);
  });

  it('gives the read role no write action except the lastUsedTime update and kept listing orders (with computation and index asks), both conditioned', () => {
    const statements = roleStatements(template, readRoleId as string);
    const keeping = statements.filter((s) => s.Sid === 'KeepListingOrders');
    expect(keeping).toHaveLength(1);
    expect(actionsOf(keeping[0] as Statement)).toEqual(['dynamodb:BatchWriteItem', 'dynamodb:PutItem']);
    expect(keeping[0]?.Condition).toEqual({
      'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['QORDER#*', 'QCOMPWANT', 'VIDXWANT'] },
    });
    const actions = statements.filter((s) => s.Sid !== 'KeepListingOrders').flatMap(actionsOf);
    for (const forbidden of ['dynamodb:PutItem', 'dynamodb:DeleteItem', 'dynamodb:BatchWriteItem']) {
      expect(actions).not.toContain(forbidden);
    }
    expect(statements.flatMap(actionsOf)).not.toContain('dynamodb:DeleteItem');
    const updates = statements.filter((s) => actionsOf(s).includes('dynamodb:UpdateItem'));
    expect(updates).toHaveLength(2);
    for (const u of updates) expect(actionsOf(u)).toEqual(['dynamodb:UpdateItem']);
    expect(updates.map((u) => u.Condition)).toEqual([
      {
        'ForAllValues:StringEquals': { 'dynamodb:Attributes': READ_ROLE_UPDATABLE_ATTRIBUTES },
        'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['USER#*'] },
      },
      // a session's touch: its expiry and last use, nothing else
      {
        'ForAllValues:StringEquals': {
          'dynamodb:Attributes': ['pk', 'sk', 'lastUsedTime', 'expiresAt', 'ttl'],
        },
        'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['LOGIN#*'] },
      },
    ]);
    expect(READ_ROLE_UPDATABLE_ATTRIBUTES).toEqual(['pk', 'sk', 'lastUsedTime']);
  });

  it.each([
    ['read', ['dynamodb:BatchGetItem', 'dynamodb:ConditionCheckItem', 'dynamodb:GetItem', 'dynamodb:Query']],
    [
      'write',
      [
        'dynamodb:BatchGetItem',
        'dynamodb:BatchWriteItem',
        'dynamodb:ConditionCheckItem',
        'dynamodb:DeleteItem',
        'dynamodb:GetItem',
        'dynamodb:PutItem',
        'dynamodb:Query',
        'dynamodb:UpdateItem',
      ],
    ],
  ])(
    'grants the %s role exactly its table actions, on the table only, and the secret',
    (access, expected) => {
      const [tableId] = logicalIdsOf(template, 'AWS::DynamoDB::Table');
      const [secretId] = logicalIdsOf(template, 'AWS::SecretsManager::Secret');
      const statements = roleStatements(template, (access === 'read' ? readRoleId : writeRoleId) as string);
      const unconditioned = statements.filter((s) => !s.Condition);
      const tableStatements = unconditioned.filter((s) =>
        actionsOf(s).some((a) => a.startsWith('dynamodb:')),
      );
      expect(tableStatements.flatMap(actionsOf).sort()).toEqual(expected);
      // The table and the definition's indexes, nothing else; the conditioned token update: the table only.
      const tableArn = { 'Fn::GetAtt': [tableId, 'Arn'] };
      const indexArns = TABLE_DEFINITION.globalSecondaryIndexes.map((g) => ({
        'Fn::Join': ['', [tableArn, `/index/${g.name}`]],
      }));
      for (const s of tableStatements)
        expect(s.Resource).toEqual(indexArns.length ? [tableArn, ...indexArns] : tableArn);
      for (const s of statements.filter((s) => s.Condition)) expect(s.Resource).toEqual(tableArn);
      expect(statements).toContainEqual(
        expect.objectContaining({ Action: 'secretsmanager:GetSecretValue', Resource: { Ref: secretId } }),
      );
    },
  );

  it('runs each function with the role of its route access', () => {
    const byKey = functionByRouteKey(template);
    for (const route of ROUTES) {
      const fn = byKey.get(routeKey(route));
      const role = (route as RouteDef).sessions
        ? sessionsRoleId
        : (route as RouteDef).webhooks
          ? webhooksRoleId
          : (route as RouteDef).sendsMail
            ? mailRoleId
            : (route as RouteDef).purges
              ? purgeRoleId
              : (route as RouteDef).files === 'write'
                ? filesRoleId
                : (route as RouteDef).files === 'export'
                  ? exportRoleId
                  : route.access === 'read'
                    ? readRoleId
                    : writeRoleId;
      expect(fn?.Properties?.Role, routeKey(route)).toEqual({ 'Fn::GetAtt': [role, 'Arn'] });
    }
  });

  it('lets only the auth routes write sessions, passwords and sign-in counts: every other role is denied all but a session touch', () => {
    const auth = ROUTES.filter((r) => (r as RouteDef).sessions).map((r) => r.handler);
    expect(auth.sort()).toEqual(['add-password', 'change-password', 'sign-in', 'sign-out', 'sign-up']);
    const denials = (roleId: string) =>
      roleStatements(template, roleId).filter((s) => (s as { Effect?: string }).Effect === 'Deny');
    const login = { 'ForAnyValue:StringLike': { 'dynamodb:LeadingKeys': ['LOGIN#*', 'LOGINTRY#*'] } };
    for (const roleId of [writeRoleId, mailRoleId, purgeRoleId, filesRoleId, webhooksRoleId]) {
      const deny = denials(roleId as string);
      expect(
        deny.map((s) => [s.Sid, actionsOf(s), s.Condition]),
        roleId,
      ).toEqual([
        ['NoSessionWrites', ['dynamodb:BatchWriteItem', 'dynamodb:DeleteItem', 'dynamodb:PutItem'], login],
        [
          'OnlyTouchSessions',
          ['dynamodb:UpdateItem'],
          {
            ...login,
            'ForAnyValue:StringNotEquals': {
              'dynamodb:Attributes': ['pk', 'sk', 'lastUsedTime', 'expiresAt', 'ttl'],
            },
          },
        ],
      ]);
    }
    // the auth routes' role: the write grants without the denial
    expect(denials(sessionsRoleId as string)).toEqual([]);
    expect(roleStatements(template, sessionsRoleId as string).flatMap(actionsOf)).toEqual(
      expect.arrayContaining(['dynamodb:PutItem', 'dynamodb:DeleteItem', 'dynamodb:UpdateItem']),
    );
  });

  it('keeps files in a private, encrypted bucket with CORS for browser uploads and a lifecycle for abandoned uploads', () => {
    template.resourceCountIs('AWS::S3::Bucket', 1);
    template.hasResource('AWS::S3::Bucket', {
      DeletionPolicy: 'Retain',
      Properties: Match.objectLike({
        BucketEncryption: {
          ServerSideEncryptionConfiguration: [{ ServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' } }],
        },
        PublicAccessBlockConfiguration: {
          BlockPublicAcls: true,
          BlockPublicPolicy: true,
          IgnorePublicAcls: true,
          RestrictPublicBuckets: true,
        },
        OwnershipControls: { Rules: [{ ObjectOwnership: 'BucketOwnerEnforced' }] },
        CorsConfiguration: {
          CorsRules: [
            Match.objectLike({
              AllowedMethods: ['PUT', 'GET', 'HEAD'],
              AllowedHeaders: ['*'],
              ExposedHeaders: ['ETag'],
            }),
          ],
        },
        LifecycleConfiguration: {
          Rules: [
            Match.objectLike({
              AbortIncompleteMultipartUpload: { DaysAfterInitiation: 1 },
              Status: 'Enabled',
            }),
            // exports too large to answer directly are removed a day later
            Match.objectLike({ Prefix: 'export/', ExpirationInDays: 1, Status: 'Enabled' }),
          ],
        },
      }),
    });
    // TLS only
    template.hasResourceProperties('AWS::S3::BucketPolicy', {
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({
            Effect: 'Deny',
            Action: 's3:*',
            Condition: { Bool: { 'aws:SecureTransport': 'false' } },
          }),
        ]),
      },
    });
    template.hasOutput('AttachmentsBucket', { Value: { Ref: Match.anyValue() } });
  });

  it('lets every route read files (to sign download URLs) and only the routes that declare files write them', () => {
    const [bucketId] = logicalIdsOf(template, 'AWS::S3::Bucket');
    const objects = { 'Fn::Join': ['', [{ 'Fn::GetAtt': [bucketId, 'Arn'] }, '/*']] };
    const writers = ROUTES.filter((r) => (r as RouteDef).files === 'write').map((r) => r.handler);
    expect(writers.sort()).toEqual([
      'notify-attachment',
      'sign-attachment-upload',
      'upload-attachment-file',
      'upload-record-attachment',
    ]);
    // the export route writes under export/ only, in parts, and nothing else of S3
    expect(ROUTES.filter((r) => (r as RouteDef).files === 'export').map((r) => r.handler)).toEqual([
      'export-table-csv',
    ]);
    const exportWrites = roleStatements(template, exportRoleId as string).filter((st) =>
      actionsOf(st).some((a) => a.startsWith('s3:') && a !== 's3:GetObject'),
    );
    expect(exportWrites).toEqual([
      expect.objectContaining({
        Sid: 'WriteExports',
        Action: ['s3:AbortMultipartUpload', 's3:PutObject'],
        Resource: { 'Fn::Join': ['', [{ 'Fn::GetAtt': [bucketId, 'Arn'] }, '/export/*']] },
      }),
    ]);
    // a large export is handed to the worker: its item and its job item put, nothing else written
    const exportTableWrites = roleStatements(template, exportRoleId as string).filter((st) =>
      actionsOf(st).some((a) => a.startsWith('dynamodb:') && !READ_ACTIONS.includes(a)),
    );
    expect(exportTableWrites.map((st) => [st.Sid, actionsOf(st), st.Condition])).toEqual([
      ['TouchToken', ['dynamodb:UpdateItem'], expect.anything()],
      ['TouchSession', ['dynamodb:UpdateItem'], expect.anything()],
      ['KeepListingOrders', ['dynamodb:BatchWriteItem', 'dynamodb:PutItem'], expect.anything()],
      [
        'HandOverExports',
        ['dynamodb:PutItem'],
        { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['EXPORT#*', 'PURGE'] } },
      ],
    ]);
    for (const roleId of [readRoleId, writeRoleId, mailRoleId, purgeRoleId, filesRoleId, workerRoleId]) {
      const statements = roleStatements(template, roleId as string);
      expect(statements, roleId).toContainEqual(
        expect.objectContaining({ Sid: 'ReadFiles', Action: 's3:GetObject', Resource: objects }),
      );
      const writes = statements.filter((st) =>
        actionsOf(st).some((a) => a === 's3:PutObject' || a === 's3:DeleteObject'),
      );
      expect(writes.length, roleId).toBe(roleId === filesRoleId || roleId === workerRoleId ? 1 : 0);
    }
    // the purge worker writes thumbnails beside the images and deletes released files
    expect(roleStatements(template, workerRoleId as string)).toContainEqual(
      expect.objectContaining({
        Sid: 'WriteFiles',
        Action: ['s3:DeleteObject', 's3:PutObject'],
        Resource: objects,
      }),
    );
    // the stream processor removes the objects of uploads never confirmed (their item expired), nothing else
    const changes = roleStatements(template, changesRoleId as string).filter((st) =>
      actionsOf(st).some((a) => a.startsWith('s3:') && a !== 's3:GetObject'),
    );
    expect(changes).toEqual([
      expect.objectContaining({
        Sid: 'ReleaseAbandonedUploads',
        Action: 's3:DeleteObject',
        Resource: objects,
      }),
    ]);
    expect(roleStatements(template, filesRoleId as string)).toContainEqual(
      expect.objectContaining({
        Sid: 'WriteFiles',
        Action: ['s3:DeleteObject', 's3:PutObject'],
        Resource: objects,
      }),
    );
  });

  it('lets only the send-verification-email Lambda send mail, from the stage sender identity only', () => {
    const mailRoutes = ROUTES.filter((r) => (r as RouteDef).sendsMail);
    expect(mailRoutes.map((r) => r.handler)).toEqual(['send-domain-verification-email']);
    // No statement anywhere else mentions SES.
    const sesStatements = allStatements(template).filter((s) =>
      actionsOf(s).some((a) => a.startsWith('ses:')),
    );
    const mailStatements = roleStatements(template, mailRoleId as string);
    expect(sesStatements).toEqual(
      mailStatements.filter((s) => actionsOf(s).some((a) => a.startsWith('ses:'))),
    );
    const [send] = sesStatements;
    expect(sesStatements).toHaveLength(1);
    expect(actionsOf(send as Statement)).toEqual(['ses:SendEmail']);
    const from = stageConfig('dev').mailFrom;
    const identityArn = (name: string) => ({
      'Fn::Join': [
        '',
        [
          'arn:',
          { Ref: 'AWS::Partition' },
          ':ses:',
          { Ref: 'AWS::Region' },
          ':',
          { Ref: 'AWS::AccountId' },
          `:identity/${name}`,
        ],
      ],
    });
    expect(send?.Resource).toHaveLength(2);
    expect(send?.Resource).toEqual(
      expect.arrayContaining([identityArn(from), identityArn(from.split('@')[1] as string)]),
    );
    expect(send?.Condition).toEqual({ StringEquals: { 'ses:FromAddress': from } });
    // Besides mail, the role has exactly the write role's grants.
    const withoutSes = mailStatements.filter((s) => !actionsOf(s).some((a) => a.startsWith('ses:')));
    expect(withoutSes).toEqual(roleStatements(template, writeRoleId as string));
    const byKey = functionByRouteKey(template);
    expect(byKey.get(routeKey(mailRoutes[0] as RouteDef))?.Properties?.Role).toEqual({
      'Fn::GetAtt': [mailRoleId, 'Arn'],
    });
  });

  it('hands permanent deletes to a purge worker: queue with a dead-letter queue, worker Lambda, hourly sweep', () => {
    const queues = template.findResources('AWS::SQS::Queue');
    // the purge queue and its dead letters, the webhooks' two, the stream processor's failures
    expect(Object.keys(queues)).toHaveLength(5);
    const [dlqId] = logicalIdsOf(template, 'AWS::SQS::Queue').filter((id) =>
      id.startsWith('PurgeDeadLetters'),
    );
    const [queueId] = logicalIdsOf(template, 'AWS::SQS::Queue').filter((id) => id.startsWith('PurgeQueue'));
    expect(queues[queueId as string]?.Properties).toMatchObject({
      VisibilityTimeout: 960,
      RedrivePolicy: { deadLetterTargetArn: { 'Fn::GetAtt': [dlqId, 'Arn'] }, maxReceiveCount: 5 },
    });
    const functions = template.findResources('AWS::Lambda::Function');
    const routeFns = new Set(routeFunctions());
    const workers = Object.entries(functions).filter(
      ([, fn]) =>
        !routeFns.has(fn as Resource) && String(fn.Properties?.Description).startsWith('Purge worker'),
    );
    expect(workers).toHaveLength(1);
    const [workerId, worker] = workers[0] as [string, Resource];
    expect(worker.Properties).toMatchObject({
      Runtime: 'nodejs22.x',
      Architectures: ['arm64'],
      Timeout: 900,
      // it decodes uploaded images for their thumbnails
      MemorySize: 2048,
      Role: { 'Fn::GetAtt': [workerRoleId, 'Arn'] },
    });
    expect((worker.Properties?.Environment as { Variables: object } | undefined)?.Variables).toMatchObject({
      PURGE_QUEUE_URL: { Ref: queueId },
      PURGE_DELAY_SECONDS: '0',
      // an import waits while the base's change log is behind its writes
      IMPORT_PACING: 'log',
    });
    template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      FunctionName: { Ref: workerId },
      EventSourceArn: { 'Fn::GetAtt': [queueId, 'Arn'] },
      BatchSize: 1,
      FunctionResponseTypes: ['ReportBatchItemFailures'],
    });
    template.hasResourceProperties('AWS::Events::Rule', {
      ScheduleExpression: 'rate(1 hour)',
      Targets: [Match.objectLike({ Arn: { 'Fn::GetAtt': [workerId, 'Arn'] } })],
    });
  });

  it('delivers webhooks with a sender fed by a queue (with a dead-letter queue) and a sweep of due retries every minute', () => {
    const queues = template.findResources('AWS::SQS::Queue');
    const [dlqId] = logicalIdsOf(template, 'AWS::SQS::Queue').filter((id) =>
      id.startsWith('WebhooksDeadLetters'),
    );
    const [queueId] = logicalIdsOf(template, 'AWS::SQS::Queue').filter((id) =>
      id.startsWith('WebhooksQueue'),
    );
    expect(queues[queueId as string]?.Properties).toMatchObject({
      VisibilityTimeout: 360,
      RedrivePolicy: { deadLetterTargetArn: { 'Fn::GetAtt': [dlqId, 'Arn'] }, maxReceiveCount: 5 },
    });
    const senders = Object.entries(template.findResources('AWS::Lambda::Function')).filter(([, fn]) =>
      String(fn.Properties?.Description).startsWith('Webhook sender'),
    );
    expect(senders).toHaveLength(1);
    const [senderId, sender] = senders[0] as [string, Resource];
    expect(sender.Properties).toMatchObject({
      Runtime: 'nodejs22.x',
      Timeout: 300,
      Role: { 'Fn::GetAtt': [senderRoleId, 'Arn'] },
    });
    expect((sender.Properties?.Environment as { Variables: object } | undefined)?.Variables).toMatchObject({
      WEBHOOK_QUEUE_URL: { Ref: queueId },
    });
    template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      FunctionName: { Ref: senderId },
      EventSourceArn: { 'Fn::GetAtt': [queueId, 'Arn'] },
      FunctionResponseTypes: ['ReportBatchItemFailures'],
    });
    template.hasResourceProperties('AWS::Events::Rule', {
      ScheduleExpression: 'rate(1 minute)',
      Targets: [Match.objectLike({ Arn: { 'Fn::GetAtt': [senderId, 'Arn'] } })],
    });
    // the sender: the write role's table grant, its own queue, no signing keys, nothing of S3
    const statements = roleStatements(template, senderRoleId as string);
    expect(statements.some((st) => actionsOf(st).includes('secretsmanager:GetSecretValue'))).toBe(false);
    expect(statements.filter((st) => actionsOf(st).some((a) => a.startsWith('sqs:')))).toEqual([
      expect.objectContaining({ Sid: 'ConsumeWebhooks', Resource: { 'Fn::GetAtt': [queueId, 'Arn'] } }),
    ]);
    // who may wake webhooks: the stream processor and the routes that redeliver or enable one
    const wakers = allStatements(template).filter(
      (st) =>
        actionsOf(st).includes('sqs:SendMessage') &&
        JSON.stringify(st.Resource) === JSON.stringify({ 'Fn::GetAtt': [queueId, 'Arn'] }),
    );
    expect(new Set(wakers)).toEqual(
      new Set([
        ...roleStatements(template, changesRoleId as string).filter((st) => st.Sid === 'WakeWebhooks'),
        ...roleStatements(template, webhooksRoleId as string).filter((st) => st.Sid === 'WakeWebhooks'),
        ...statements.filter((st) => st.Sid === 'ConsumeWebhooks'),
      ]),
    );
    expect(
      ROUTES.filter((r) => (r as RouteDef).webhooks)
        .map((r) => r.handler)
        .sort(),
    ).toEqual(['redeliver-webhook', 'update-webhook']);
  });

  it('serves live subscriptions from a WebSocket API: $connect, $disconnect and $default to one Lambda, stage live, connections managed by it and the stream processor only', () => {
    const live = synthesized.live;
    live.resourceCountIs('AWS::ApiGatewayV2::Api', 1);
    live.hasResourceProperties('AWS::ApiGatewayV2::Api', {
      ProtocolType: 'WEBSOCKET',
      RouteSelectionExpression: '$request.body.action',
    });
    const [apiId] = logicalIdsOf(live, 'AWS::ApiGatewayV2::Api');
    const [integrationId] = logicalIdsOf(live, 'AWS::ApiGatewayV2::Integration');
    const [socketId] = logicalIdsOf(live, 'AWS::Lambda::Function');
    const routes = Object.values(live.findResources('AWS::ApiGatewayV2::Route'));
    expect(routes.map((r) => r.Properties.RouteKey).sort()).toEqual(['$connect', '$default', '$disconnect']);
    for (const route of routes)
      expect(route.Properties).toMatchObject({
        ApiId: { Ref: apiId },
        Target: { 'Fn::Join': ['', ['integrations/', { Ref: integrationId }]] },
      });
    live.hasResourceProperties('AWS::ApiGatewayV2::Integration', { IntegrationType: 'AWS_PROXY' });
    live.hasResourceProperties('AWS::ApiGatewayV2::Stage', { StageName: 'live', AutoDeploy: true });
    live.hasResourceProperties('AWS::Lambda::Permission', {
      FunctionName: { 'Fn::GetAtt': [socketId, 'Arn'] },
      Principal: 'apigateway.amazonaws.com',
    });
    const [liveRoleId] = logicalIdsOf(live, 'AWS::IAM::Role');
    const manage = (statements: Statement[]) =>
      statements.filter((st) => actionsOf(st).some((a) => a.startsWith('execute-api:')));
    const liveGrant = manage(roleStatements(live, liveRoleId as string));
    expect(liveGrant).toHaveLength(1);
    expect(actionsOf(liveGrant[0] as Statement)).toEqual(['execute-api:ManageConnections']);
    expect(JSON.stringify(liveGrant[0]?.Resource)).toContain('/live/*/@connections/*');
    // the stream processor fans out with the same grant (and the socket's); no other role has it
    expect(manage(roleStatements(template, changesRoleId as string))).toContainEqual(liveGrant[0]);
    const holders = [...logicalIdsOf(template, 'AWS::IAM::Role'), liveRoleId as string].filter(
      (id) => manage(roleStatements(id === liveRoleId ? live : template, id)).length > 0,
    );
    expect(holders.sort()).toEqual([changesRoleId, liveRoleId].sort());
    const processor = Object.values(template.findResources('AWS::Lambda::Function')).find((fn) =>
      String(fn.Properties?.Description).startsWith('Stream processor'),
    );
    expect(JSON.stringify(processor?.Properties?.Environment)).toContain('/live');
    synthesized.rootAll.hasOutput('LiveUrl', Match.anyValue());
  });

  it("serves the realtime socket from its own WebSocket API: stage socket (the web app's /socket), every message to $default, one Lambda, connections managed by it and the stream processor only", () => {
    const socket = synthesized.socket;
    socket.resourceCountIs('AWS::ApiGatewayV2::Api', 1);
    socket.hasResourceProperties('AWS::ApiGatewayV2::Api', { ProtocolType: 'WEBSOCKET' });
    const [apiId] = logicalIdsOf(socket, 'AWS::ApiGatewayV2::Api');
    const [integrationId] = logicalIdsOf(socket, 'AWS::ApiGatewayV2::Integration');
    const [lambdaId] = logicalIdsOf(socket, 'AWS::Lambda::Function');
    const routes = Object.values(socket.findResources('AWS::ApiGatewayV2::Route'));
    expect(routes.map((r) => r.Properties.RouteKey).sort()).toEqual(['$connect', '$default', '$disconnect']);
    for (const route of routes)
      expect(route.Properties).toMatchObject({
        ApiId: { Ref: apiId },
        Target: { 'Fn::Join': ['', ['integrations/', { Ref: integrationId }]] },
      });
    socket.hasResourceProperties('AWS::ApiGatewayV2::Stage', { StageName: 'socket', AutoDeploy: true });
    const fn = socket.findResources('AWS::Lambda::Function')[lambdaId as string];
    expect(fn?.Properties?.Description).toBe('Realtime socket: ShareDB sessions, kept between messages');
    expect(JSON.stringify(fn?.Properties?.Environment)).toContain('SOCKET_CALLBACK_URL');
    expect(JSON.stringify(fn?.Properties?.Environment)).toContain('/socket');
    socket.hasResourceProperties('AWS::Lambda::Permission', {
      FunctionName: { 'Fn::GetAtt': [lambdaId, 'Arn'] },
      Principal: 'apigateway.amazonaws.com',
    });
    const [roleId] = logicalIdsOf(socket, 'AWS::IAM::Role');
    const manage = (statements: Statement[]) =>
      statements.filter((st) => actionsOf(st).some((a) => a.startsWith('execute-api:')));
    const grant = manage(roleStatements(socket, roleId as string));
    expect(grant).toHaveLength(1);
    expect(actionsOf(grant[0] as Statement)).toEqual(['execute-api:ManageConnections']);
    expect(JSON.stringify(grant[0]?.Resource)).toContain('/socket/*/@connections/*');
    expect(JSON.stringify(grant[0]?.Resource)).toContain(apiId as string);
    // the stream processor posts the ops with the same grant and knows where
    expect(manage(roleStatements(template, changesRoleId as string))).toContainEqual(grant[0]);
    const processor = Object.values(template.findResources('AWS::Lambda::Function')).find((f) =>
      String(f.Properties?.Description).startsWith('Stream processor'),
    );
    expect(JSON.stringify(processor?.Properties?.Environment)).toContain('SOCKET_CALLBACK_URL');
    // no other role of the stack manages connections
    const holders = logicalIdsOf(template, 'AWS::IAM::Role').filter(
      (id) => manage(roleStatements(template, id)).length > 0,
    );
    expect(holders).toEqual([changesRoleId]);
    synthesized.rootAll.hasOutput('SocketUrl', Match.anyValue());
  });

  it('writes the change log from the table stream: mapping knobs, on-failure queue, least privilege', () => {
    const functions = template.findResources('AWS::Lambda::Function');
    const processors = Object.entries(functions).filter(([, fn]) =>
      String(fn.Properties?.Description).startsWith('Stream processor'),
    );
    expect(processors).toHaveLength(1);
    const [processorId, processor] = processors[0] as [string, Resource];
    const [roleId] = logicalIdsOf(template, 'AWS::IAM::Role').filter((id) => id.startsWith('ChangesRole'));
    const [failuresId] = logicalIdsOf(template, 'AWS::SQS::Queue').filter((id) =>
      id.startsWith('ChangesFailures'),
    );
    const [tableId] = logicalIdsOf(template, 'AWS::DynamoDB::Table');
    expect(processor.Properties).toMatchObject({
      Runtime: 'nodejs22.x',
      Architectures: ['arm64'],
      Timeout: 60,
      Role: { 'Fn::GetAtt': [roleId, 'Arn'] },
    });
    expect((processor.Properties?.Environment as { Variables: object } | undefined)?.Variables).toMatchObject(
      {
        CHANGE_LOG_DAYS: '30',
      },
    );
    template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      FunctionName: { Ref: processorId },
      EventSourceArn: { 'Fn::GetAtt': [tableId, 'StreamArn'] },
      StartingPosition: 'TRIM_HORIZON',
      BatchSize: 500,
      MaximumBatchingWindowInSeconds: 1,
      MaximumRetryAttempts: 10,
      MaximumRecordAgeInSeconds: 86_400,
      BisectBatchOnFunctionError: true,
      ParallelizationFactor: 1,
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      DestinationConfig: { OnFailure: { Destination: { 'Fn::GetAtt': [failuresId, 'Arn'] } } },
    });
    expect(template.findResources('AWS::SQS::Queue')[failuresId as string]?.Properties).toMatchObject({
      MessageRetentionPeriod: 1_209_600,
    });
    const policies = JSON.stringify(
      (template.findResources('AWS::IAM::Role')[roleId as string] as Resource).Properties?.Policies,
    );
    expect(policies).toContain('dynamodb:GetRecords');
    expect(policies).toContain('sqs:SendMessage');
    expect(policies).not.toMatch(/ses:|secretsmanager:|sqs:ReceiveMessage/);
  });

  it('repairs interrupted writes every minute: one worker, one at a time, with table access only', () => {
    const functions = template.findResources('AWS::Lambda::Function');
    const repair = Object.entries(functions).filter(([, fn]) =>
      String(fn.Properties?.Description).startsWith('Repair worker'),
    );
    expect(repair).toHaveLength(1);
    const [repairId, worker] = repair[0] as [string, Resource];
    expect(worker.Properties).toMatchObject({
      Runtime: 'nodejs22.x',
      Architectures: ['arm64'],
      ReservedConcurrentExecutions: 1,
      Role: { 'Fn::GetAtt': [repairRoleId, 'Arn'] },
    });
    template.hasResourceProperties('AWS::Events::Rule', {
      ScheduleExpression: 'rate(1 minute)',
      Targets: [Match.objectLike({ Arn: { 'Fn::GetAtt': [repairId, 'Arn'] } })],
    });
    const role = template.findResources('AWS::IAM::Role')[repairRoleId as string] as Resource;
    const actions = JSON.stringify(role.Properties?.Policies);
    expect(actions).toContain('dynamodb:');
    expect(actions).not.toMatch(/sqs:|ses:|secretsmanager:/);
  });

  it('lets every route wake the repair worker (an async invoke, dropped after five minutes, never retried) and no worker', () => {
    template.hasResourceProperties('AWS::Lambda::EventInvokeConfig', {
      FunctionName: { Ref: repairWorkerId },
      Qualifier: '$LATEST',
      MaximumEventAgeInSeconds: 300,
      MaximumRetryAttempts: 0,
    });
    const invokes = allStatements(template).filter((s) => actionsOf(s).some((a) => a.startsWith('lambda:')));
    expect(invokes.length).toBeGreaterThan(0);
    for (const statement of invokes) {
      expect(statement.Sid).toBe('WakeRepairWorker');
      expect(actionsOf(statement)).toEqual(['lambda:InvokeFunction']);
      expect(statement.Resource).toEqual({ 'Fn::GetAtt': [repairWorkerId, 'Arn'] });
    }
    const wakes = (roleId: string) =>
      roleStatements(template, roleId).some((s) => s.Sid === 'WakeRepairWorker');
    for (const fn of routeFunctions()) {
      const roleId = refId((fn.Properties as { Role?: unknown }).Role);
      expect(wakes(roleId), String(fn.Properties?.Description)).toBe(true);
    }
    for (const worker of [repairRoleId, workerRoleId, changesRoleId, senderRoleId])
      expect(wakes(worker as string)).toBe(false);
  });

  it('lets only the routes that delete for good (and the rename and imports) enqueue jobs, and only the worker consume them', () => {
    const queueArn = (id: string | undefined) => ({ 'Fn::GetAtt': [id, 'Arn'] });
    const [queueId] = logicalIdsOf(template, 'AWS::SQS::Queue').filter((id) => id.startsWith('PurgeQueue'));
    // the stream processor's on-failure queue is its own (its test checks it)
    const changesStatements = roleStatements(template, changesRoleId as string);
    // the webhook queue's grants are checked with the sender
    const webhookStatements = [
      ...roleStatements(template, webhooksRoleId as string),
      ...roleStatements(template, senderRoleId as string),
    ];
    const sqsStatements = allStatements(template).filter(
      (s) =>
        actionsOf(s).some((a) => a.startsWith('sqs:')) &&
        !changesStatements.includes(s) &&
        !(webhookStatements.includes(s) && s.Sid?.includes('Webhooks')),
    );
    const purgeStatements = roleStatements(template, purgeRoleId as string);
    const workerStatements = roleStatements(template, workerRoleId as string);
    const filesStatements = roleStatements(template, filesRoleId as string);
    const sqsOf = (statements: Statement[]) =>
      statements.filter((s) => actionsOf(s).some((a) => a.startsWith('sqs:')));
    const enqueue = sqsOf(purgeStatements);
    const consume = sqsOf(workerStatements);
    // routes that confirm files send thumbnail jobs, the export hands large exports over: the same single grant
    const thumbnails = sqsOf(filesStatements);
    const exports = sqsOf(roleStatements(template, exportRoleId as string));
    expect(new Set(sqsStatements)).toEqual(new Set([...enqueue, ...consume, ...thumbnails, ...exports]));
    for (const grant of [enqueue, thumbnails, exports])
      expect(grant).toEqual([
        expect.objectContaining({ Action: 'sqs:SendMessage', Resource: queueArn(queueId) }),
      ]);
    expect(actionsOf(consume[0] as Statement).sort()).toEqual([
      'sqs:ChangeMessageVisibility',
      'sqs:DeleteMessage',
      'sqs:GetQueueAttributes',
      'sqs:ReceiveMessage',
      'sqs:SendMessage',
    ]);
    expect(consume[0]?.Resource).toEqual(queueArn(queueId));
    // besides the queue, the purge role has exactly the write role's grants
    expect(purgeStatements.filter((s) => !enqueue.includes(s))).toEqual(
      roleStatements(template, writeRoleId as string),
    );
    // the worker: the write role's table grant, no signing keys
    expect(workerStatements.some((s) => actionsOf(s).includes('secretsmanager:GetSecretValue'))).toBe(false);
    expect(workerStatements.some((s) => actionsOf(s).includes('dynamodb:BatchWriteItem'))).toBe(true);
    expect(
      ROUTES.filter((r) => (r as RouteDef).purges)
        .map((r) => r.handler)
        .sort(),
    ).toEqual([
      'delete-base-permanently',
      'delete-node-permanently',
      'delete-space-permanently',
      'delete-table-permanently',
      'delete-trash-item',
      // imports run on the worker
      'import-table-from-file',
      'inplace-import-table',
      'rename-user',
      'reset-trash-items',
    ]);
  });

  it('puts the routes in nested stacks, each in the one its handler hashes to, and all else in the root', () => {
    expectRoutesSplit(synthesized, ROUTES);
    // The route functions reach the roles, log group, table, secret and API of the root (asserted
    // above through the merged view); the root itself runs only the workers, the stream processor
    // and the answerer of unmatched requests.
    synthesized.root.resourceCountIs('AWS::Lambda::Function', WORKERS);
    synthesized.root.resourceCountIs('AWS::IAM::Role', 13);
    for (const { template: nested } of synthesized.nested) nested.resourceCountIs('AWS::IAM::Role', 0);
  });

  it('keeps every template, the root and each nested stack, well under 500 resources', () => {
    const counts = countsOf(synthesized);
    console.log(`dev: ${ROUTES.length} routes, resources per template: ${JSON.stringify(counts)}`);
    for (const [id, count] of Object.entries(counts)) {
      expect(count, id).toBeLessThanOrEqual(TEMPLATE_BUDGET);
      expect(count, id).toBeLessThan(500);
    }
    expect(MAX_ROUTES_PER_STACK * RESOURCES_PER_ROUTE).toBeLessThanOrEqual(TEMPLATE_BUDGET);
  });
});

describe('WorkspaceApiStack (prod)', () => {
  const template = synth('prod');

  it('keeps the data: PITR, deletion protection, Retain on table and secret', () => {
    template.hasResource('AWS::DynamoDB::Table', {
      DeletionPolicy: 'Retain',
      UpdateReplacePolicy: 'Retain',
      Properties: Match.objectLike({
        DeletionProtectionEnabled: true,
        PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
      }),
    });
    template.hasResource('AWS::SecretsManager::Secret', { DeletionPolicy: 'Retain' });
    template.hasResource('AWS::Logs::LogGroup', { DeletionPolicy: 'Retain' });
  });

  it('allows no browser origin by default: the HTTP API has no CORS configuration', () => {
    expect(stageConfig('prod').corsOrigins).toEqual([]);
    template.resourceCountIs('AWS::ApiGatewayV2::Api', 1);
    template.hasResourceProperties('AWS::ApiGatewayV2::Api', { CorsConfiguration: Match.absent() });
  });

  it('throttles with the prod limits and names issuer and audience after the stage', () => {
    const { rateLimit, burstLimit } = stageConfig('prod').throttle;
    template.hasResourceProperties('AWS::ApiGatewayV2::Stage', {
      DefaultRouteSettings: { ThrottlingRateLimit: rateLimit, ThrottlingBurstLimit: burstLimit },
    });
    for (const fn of Object.values(template.findResources('AWS::Lambda::Function'))) {
      const env = fn.Properties.Environment.Variables;
      expect(env).toMatchObject({ STAGE: 'prod', POWERTOOLS_LOG_LEVEL: 'INFO' });
      // every route checks tokens; the workers (SIGNING_KEYS_SECRET_ARN empty) check none
      if (env.SIGNING_KEYS_SECRET_ARN) expect(env.JWT_ISSUER).toBe('workspace-api-prod');
      else
        expect(fn.Properties.Description).toMatch(
          /^((Purge|Repair) worker|Stream processor|Webhook sender|The \$default route):/,
        );
    }
  });
});

describe('stage configuration and app', () => {
  it('bundles Powertools instead of the layer with `-c powertools=bundled` (sam local), and refuses other values', () => {
    const { stack } = createApp({ context: { ...CDK_CONTEXT, stage: 'dev', powertools: 'bundled' } });
    const templates = [
      stack,
      ...stack.node.findAll().filter((c): c is NestedStack => c instanceof NestedStack),
    ];
    const functions = templates.flatMap((s) =>
      Object.values(Template.fromStack(s).findResources('AWS::Lambda::Function')),
    );
    expect(functions).toHaveLength(ROUTES.length + WORKERS + 2); // and the two WebSocket APIs' Lambdas
    for (const fn of functions) {
      expect(fn.Properties.Layers).toBeUndefined();
      expect(fn.Properties.TracingConfig).toEqual({ Mode: 'Active' });
    }
    expect(() => createApp({ context: { ...CDK_CONTEXT, powertools: 'yes' } })).toThrow(/use layer/);
  });

  it('builds the prod stack from `-c stage=prod` with a name containing the stage', () => {
    const { stack } = createApp({ context: { ...CDK_CONTEXT, stage: 'prod' } });
    expect(stack.stackName).toBe('WorkspaceApi-prod');
    expect(stack.stackName).toContain('prod');
  });

  it('synthesizes the cdk.json app as one deployable stack: the root, its nested stacks as its assets', () => {
    const { app } = createApp({ context: { ...CDK_CONTEXT, stage: 'dev' } });
    const assembly = app.synth();
    // One stack to deploy (`cdk deploy -c stage=dev` needs no stack names): the nested ones are in it.
    expect(assembly.stacks.map((s) => s.stackName)).toEqual(['WorkspaceApi-dev']);
    const [stack] = assembly.stacks;
    const template = stack?.template as TemplateJson;
    const nestedStacks = Object.values(template.Resources).filter(
      (r) => r.Type === 'AWS::CloudFormation::Stack',
    );
    expect(nestedStacks).toHaveLength(groupRoutes(ROUTES).size);
    // `cdk deploy` uploads each nested template (an asset of the root) where its TemplateURL points.
    const manifest = JSON.parse(
      readFileSync(path.join(assembly.directory, `${stack?.stackName}.assets.json`), 'utf8'),
    ) as {
      files: Record<
        string,
        { source: { path: string }; destinations: Record<string, { objectKey: string }> }
      >;
    };
    for (const resource of nestedStacks) {
      const url = JSON.stringify(resource.Properties?.TemplateURL);
      const asset = Object.values(manifest.files).find((file) =>
        Object.values(file.destinations).some((d) => url.includes(d.objectKey)),
      );
      expect(asset?.source.path).toMatch(/\.nested\.template\.json$/);
      const nested = JSON.parse(
        readFileSync(path.join(assembly.directory, asset?.source.path as string), 'utf8'),
      ) as TemplateJson;
      expect(Object.values(nested.Resources).some((r) => r.Type === 'AWS::ApiGatewayV2::Route')).toBe(true);
    }
  });

  it("puts a stage's listed origins, exactly, on the HTTP API's CORS configuration", () => {
    const origins = ['https://app.example.com', 'http://localhost:5173'];
    const stack = new WorkspaceApiStack(new App({ context: CDK_CONTEXT }), 'WorkspaceApi-cors', {
      config: { ...stageConfig('cors'), corsOrigins: origins },
      projectRoot: PROJECT_ROOT,
      routes: ROUTES.filter((r) => r.handler === 'get-health'),
    });

    Template.fromStack(stack).hasResourceProperties('AWS::ApiGatewayV2::Api', {
      CorsConfiguration: Match.objectLike({ AllowOrigins: origins }),
    });
  });

  it("puts Teable's web app and both APIs on one origin with CloudFront when the stage names the web app (-c webOrigin)", () => {
    const plain = Template.fromStack(createApp({ context: { ...CDK_CONTEXT, stage: 'plain' } }).stack);
    plain.resourceCountIs('AWS::CloudFront::Distribution', 0);
    const { stack } = createApp({
      context: { ...CDK_CONTEXT, stage: 'webtry', webOrigin: 'https://web.example.com:8443' },
    });
    const t = Template.fromStack(stack);
    t.resourceCountIs('AWS::CloudFront::Distribution', 1);
    const [distribution] = Object.values(t.findResources('AWS::CloudFront::Distribution'));
    const dc = distribution?.Properties.DistributionConfig;
    const originOf = (id: string) => dc.Origins.find((o: { Id: string }) => o.Id === id);
    const [httpApiId] = logicalIdsOf(t, 'AWS::ApiGatewayV2::Api').filter((id) => !/^(Live|Socket)/.test(id));
    const [socketApiId] = logicalIdsOf(t, 'AWS::ApiGatewayV2::Api').filter((id) => id.startsWith('Socket'));
    const behaviors = Object.fromEntries(
      dc.CacheBehaviors.map((b: { PathPattern: string }) => [b.PathPattern, b]),
    ) as Record<string, { TargetOriginId: string } & Record<string, unknown>>;
    expect(Object.keys(behaviors).sort()).toEqual(['/api/*', '/socket']);
    // /api/* to the HTTP API, /socket to the socket's WebSocket API, the rest to the web app
    expect(JSON.stringify(originOf(behaviors['/api/*']?.TargetOriginId as string).DomainName)).toContain(
      httpApiId as string,
    );
    expect(JSON.stringify(originOf(behaviors['/socket']?.TargetOriginId as string).DomainName)).toContain(
      socketApiId as string,
    );
    expect(originOf(dc.DefaultCacheBehavior.TargetOriginId)).toMatchObject({
      DomainName: 'web.example.com',
      CustomOriginConfig: { OriginProtocolPolicy: 'https-only', HTTPSPort: 8443 },
    });
    for (const b of [dc.DefaultCacheBehavior, ...Object.values(behaviors)]) {
      expect(b).toMatchObject({
        // nothing cached; cookies, queries and every header but Host go to the origin
        CachePolicyId: '4135ea2d-6df8-44a3-9df3-4b5a84be39ad',
        OriginRequestPolicyId: 'b689b0a8-53d0-40ab-baf2-68738e2966ac',
        ViewerProtocolPolicy: 'redirect-to-https',
        AllowedMethods: expect.arrayContaining(['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']),
      });
      expect(b.FunctionAssociations).toEqual([
        { EventType: 'viewer-request', FunctionARN: expect.anything() },
      ]);
    }
    t.hasResourceProperties('AWS::CloudFront::Function', {
      FunctionCode: Match.stringLikeRegexp(
        "headers\\['x-forwarded-host'\\] = \\{ value: request\\.headers\\.host\\.value \\}",
      ),
    });
    t.hasOutput('WebUrl', Match.anyValue());
    // the Lambdas still take cookie-carried writes from the web app's origin itself
    const routeFunctions = stack.node
      .findAll()
      .filter((c): c is NestedStack => c instanceof NestedStack)
      .flatMap((n) => Object.values(Template.fromStack(n).findResources('AWS::Lambda::Function')));
    expect(routeFunctions.length).toBeGreaterThan(0);
    for (const f of routeFunctions)
      expect(f.Properties.Environment.Variables.WEB_ORIGIN).toBe('https://web.example.com:8443');
  });

  it('refuses a webOrigin that is not an http(s) origin', () => {
    for (const webOrigin of ['ftp://web.example.com', 'https://web.example.com/app', 'not a url'])
      expect(() => parseWebOrigin(webOrigin), webOrigin).toThrow(/webOrigin/);
    expect(parseWebOrigin('http://127.0.0.1:3210').port).toBe('3210');
  });

  it('defaults to the dev stage', () => {
    const { stack } = createApp({ context: { 'aws:cdk:bundling-stacks': [] } });
    expect(stack.stackName).toBe('WorkspaceApi-dev');
  });

  it('treats any other stage like dev, under its own name', () => {
    const config = stageConfig('alice');
    expect(config).toMatchObject({ stage: 'alice', pointInTimeRecovery: false, deletionProtection: false });
    expect(config.removalPolicy).toBe(stageConfig('dev').removalPolicy);
  });

  it('refuses stage names that cannot go into a stack name', () => {
    expect(() => stageConfig('Prod_1')).toThrow(/Invalid stage name/);
  });
});

describe('route table and functions/ agree', () => {
  const functionsDir = path.join(PROJECT_ROOT, 'functions');
  const files = readdirSync(functionsDir).filter((f) => f.endsWith('.ts'));
  const handlers = ROUTES.map((r) => r.handler);

  it('has a functions/<handler>.ts for every route', () => {
    expect(handlers.filter((h) => !files.includes(`${h}.ts`))).toEqual([]);
  });

  it('has a route for every file in functions/', () => {
    expect(files.map((f) => f.replace(/\.ts$/, '')).filter((f) => !handlers.includes(f as never))).toEqual(
      [],
    );
  });

  it('has no two routes with one handler or one method and path', () => {
    expect(new Set(handlers).size).toBe(ROUTES.length);
    expect(new Set(ROUTES.map(routeKey)).size).toBe(ROUTES.length);
  });
});

describe('resource budget', () => {
  /** A route table well past today's, to show the room left. */
  const SYNTHETIC_ROUTES = 250;
  let root: string;

  // A throwaway project whose functions/ holds one stub per synthetic route (NodejsFunction checks entries exist).
  beforeAll(() => {
    root = mkdtempSync(path.join(tmpdir(), 'workspace-api-budget-'));
    mkdirSync(path.join(root, 'functions', 'workers'), { recursive: true });
    mkdirSync(path.join(root, 'functions', 'gateway'), { recursive: true });
    writeFileSync(
      path.join(root, 'functions', 'gateway', 'unmatched-request.ts'),
      'export const handler = async () => ({});\n',
    );
    copyFileSync(path.join(PROJECT_ROOT, 'package-lock.json'), path.join(root, 'package-lock.json'));
    // Every stack has the repair worker, the stream processor, the webhook sender and the live socket.
    for (const worker of [
      'repair-worker.ts',
      'stream-processor.ts',
      'webhook-sender.ts',
      'live-socket.ts',
      'socket.ts',
    ])
      writeFileSync(
        path.join(root, 'functions', 'workers', worker),
        'export const handler = async () => ({});\n',
      );
    // One more than the table: the stability test adds a route.
    for (let i = 0; i <= SYNTHETIC_ROUTES; i++) {
      writeFileSync(
        path.join(root, 'functions', `synthetic-${i}.ts`),
        'export const handler = async () => ({});\n',
      );
    }
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  const methods = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;
  const syntheticRoute = (i: number): RouteDef => ({
    method: methods[i % methods.length] as RouteDef['method'],
    path: `/synthetic/{id}/r${i}`,
    handler: `synthetic-${i}`,
    access: i % 2 ? 'write' : 'read',
    actions: [],
  });
  const syntheticRoutes = Array.from({ length: SYNTHETIC_ROUTES }, (_, i) => syntheticRoute(i));

  /** Where each route's four resources are: `<nested stack logical id>/<resource logical id>`. */
  const placesOf = (synthesized: Synthesized): Map<string, string[]> => {
    const places = new Map<string, string[]>();
    for (const { template, logicalId } of synthesized.nested) {
      const resources = resourcesOf(template);
      for (const [routeId, route] of Object.entries(resources)) {
        if (route.Type !== 'AWS::ApiGatewayV2::Route') continue;
        const target = route.Properties?.Target as { 'Fn::Join': [string, [string, unknown]] };
        const integrationId = refId(target['Fn::Join'][1][1]);
        const functionId = refId(resources[integrationId]?.Properties?.IntegrationUri);
        const permissionIds = Object.entries(resources)
          .filter(([, r]) => r.Type === 'AWS::Lambda::Permission')
          .filter(([, r]) => refId(r.Properties?.FunctionName) === functionId)
          .map(([id]) => id);
        places.set(
          route.Properties?.RouteKey as string,
          [routeId, integrationId, functionId, ...permissionIds].map((id) => `${logicalId}/${id}`),
        );
      }
    }
    return places;
  };

  let synthetic: Synthesized;

  it(`fits ${SYNTHETIC_ROUTES} routes with every template well under 500 resources`, () => {
    synthetic = synthAll('dev', syntheticRoutes, root);
    const counts = countsOf(synthetic);
    console.log(`synthetic: ${SYNTHETIC_ROUTES} routes, resources per template: ${JSON.stringify(counts)}`);
    // The routes, the repair worker, the stream processor, the webhook sender and the answerer of
    // unmatched requests (the synthetic routes purge nothing: no purge worker).
    synthetic.whole.resourceCountIs('AWS::Lambda::Function', SYNTHETIC_ROUTES + 4);
    synthetic.whole.resourceCountIs('AWS::ApiGatewayV2::Route', SYNTHETIC_ROUTES + 1);
    synthetic.whole.resourceCountIs('AWS::IAM::Role', 6);
    expect(synthetic.nested).toHaveLength(ROUTE_STACK_COUNT);
    expectRoutesSplit(synthetic, syntheticRoutes);
    for (const [id, count] of Object.entries(counts)) {
      expect(count, id).toBeLessThanOrEqual(TEMPLATE_BUDGET);
      expect(count, id).toBeLessThan(500);
    }
  });

  it('moves no route when one is added and another removed: every other route keeps its logical ids', () => {
    const changed = [...syntheticRoutes.filter((_, i) => i !== 100), syntheticRoute(SYNTHETIC_ROUTES)];
    const before = placesOf(synthetic);
    const after = placesOf(synthAll('dev', changed, root));
    expect(before.size).toBe(SYNTHETIC_ROUTES);
    expect(after.size).toBe(SYNTHETIC_ROUTES);
    for (const route of syntheticRoutes.filter((_, i) => i !== 100))
      expect(after.get(routeKey(route)), routeKey(route)).toEqual(before.get(routeKey(route)));
  });

  it('refuses, at synth, a nested stack of more routes than its budget', () => {
    const inOneStack = Array.from({ length: SYNTHETIC_ROUTES }, (_, i) => syntheticRoute(i))
      .filter((route) => routeStackIndex(route.handler) === 0)
      .slice(0, 1);
    expect(inOneStack).toHaveLength(1);
    const tooMany = Array.from({ length: MAX_ROUTES_PER_STACK + 1 }, () => inOneStack[0] as RouteDef);
    expect(() => synthAll('dev', tooMany, root)).toThrow(/more than 75/);
  });

  it('states in infra/README.md the figures these tests find', () => {
    const readme = readFileSync(path.join(PROJECT_ROOT, 'infra/README.md'), 'utf8').replace(/\s+/g, ' ');
    const paragraph = readme.slice(readme.indexOf('**The stack** (`infra/stack.ts`)'));
    const figure = (pattern: RegExp): number[] => {
      const match = paragraph.match(pattern);
      expect(match, String(pattern)).not.toBeNull();
      return (match as RegExpMatchArray).slice(1).map(Number);
    };
    const dev = synthAll('dev');
    const nestedCounts = (s: Synthesized) => s.nested.map((n) => resourceCount(n.template));
    expect(figure(/A route costs (\d+) resources/)).toEqual([RESOURCES_PER_ROUTE]);
    expect(figure(/the routes are in (\d+) nested stacks/)).toEqual([ROUTE_STACK_COUNT]);
    expect(figure(/(\d+) resources with the current routes, (\d+) of them the nested stacks/)).toEqual([
      resourceCount(dev.rootAll),
      dev.nested.length,
    ]);
    expect(
      figure(
        /A nested stack holds (\d+) resources per route of its group, at most (\d+) routes \((\d+) resources/,
      ),
    ).toEqual([RESOURCES_PER_ROUTE, MAX_ROUTES_PER_STACK, TEMPLATE_BUDGET]);
    expect(
      figure(/synthetic table of (\d+) routes fits with at most (\d+) resources in a nested stack/),
    ).toEqual([SYNTHETIC_ROUTES, Math.max(...nestedCounts(synthetic))]);
  });
});

describe('route grouping', () => {
  it('hashes a handler to a fixed nested stack: changing the hash or the count would move deployed routes', () => {
    expect(ROUTE_STACK_COUNT).toBe(8);
    expect(
      ['get-space', 'get-current-user', 'create-record', 'list-records', 'delete-trash-item'].map(
        routeStackIndex,
      ),
    ).toEqual([0, 1, 5, 6, 7]);
  });

  it('keeps every route in its group when routes are added anywhere in the table', () => {
    const extra = (handler: string): RouteDef => ({
      method: 'GET',
      path: `/${handler}`,
      handler,
      access: 'read',
      actions: [],
    });
    const grown = [extra('a-new-first-route'), ...ROUTES, extra('a-new-last-route')];
    const indexOf = (groups: Map<number, RouteDef[]>, handler: string) =>
      [...groups].find(([, group]) => group.some((r) => r.handler === handler))?.[0];
    const before = groupRoutes(ROUTES);
    const after = groupRoutes(grown);
    for (const route of ROUTES) expect(indexOf(after, route.handler)).toBe(indexOf(before, route.handler));
  });
});
