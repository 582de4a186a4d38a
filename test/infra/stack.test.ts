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
import { App } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { READ_ROLE_UPDATABLE_ATTRIBUTES } from '#infra/api-construct.ts';
import { stackNameFor, stageConfig } from '#infra/config.ts';
import { createApp, PROJECT_ROOT } from '#infra/create-app.ts';
import { WorkspaceApiStack } from '#infra/stack.ts';
import { TABLE_DEFINITION } from '#shared/db/table-definition.ts';
import { API_PREFIX, ROUTES, type RouteDef } from '#shared/routes.ts';

// The feature flags of cdk.json, so the tests see the template `cdk synth` produces; plus the official
// switch that skips asset bundling (esbuild for every handler would make each synth take seconds).
const CDK_CONTEXT = {
  ...(JSON.parse(readFileSync(path.join(PROJECT_ROOT, 'cdk.json'), 'utf8')) as { context: object }).context,
  'aws:cdk:bundling-stacks': [],
};

const synth = (stage: string, routes?: readonly RouteDef[], projectRoot = PROJECT_ROOT): Template => {
  const app = new App({ context: CDK_CONTEXT });
  const stack = new WorkspaceApiStack(app, stackNameFor(stage), {
    config: stageConfig(stage),
    projectRoot,
    routes,
  });
  return Template.fromStack(stack);
};

type Resource = { Type: string; Properties?: Record<string, unknown> } & Record<string, unknown>;
type Statement = { Action: string | string[]; Condition?: Record<string, unknown>; Resource: unknown };

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

/** For every API route key, the Lambda it invokes (route → integration → function). */
const functionByRouteKey = (template: Template): Map<string, Resource> => {
  const resources = resourcesOf(template);
  const result = new Map<string, Resource>();
  for (const route of Object.values(resources).filter((r) => r.Type === 'AWS::ApiGatewayV2::Route')) {
    const target = route.Properties?.Target as { 'Fn::Join': [string, [string, unknown]] };
    const integration = resources[refId(target['Fn::Join'][1][1])];
    const fn = resources[refId(integration?.Properties?.IntegrationUri)];
    if (!fn) throw new Error(`route ${String(route.Properties?.RouteKey)} reaches no function`);
    result.set(route.Properties?.RouteKey as string, fn);
  }
  return result;
};

const routeKey = (route: RouteDef): string => `${route.method} ${API_PREFIX}${route.path}`;

describe('WorkspaceApiStack (dev)', () => {
  const template = synth('dev');
  const [readRoleId] = logicalIdsOf(template, 'AWS::IAM::Role').filter((id) => id.includes('ReadRole'));
  const [writeRoleId] = logicalIdsOf(template, 'AWS::IAM::Role').filter((id) => id.includes('WriteRole'));
  const [mailRoleId] = logicalIdsOf(template, 'AWS::IAM::Role').filter((id) => id.includes('MailRole'));
  const [purgeRoleId] = logicalIdsOf(template, 'AWS::IAM::Role').filter((id) =>
    id.startsWith('FunctionsPurgeRole'),
  );
  const [workerRoleId] = logicalIdsOf(template, 'AWS::IAM::Role').filter((id) => id.startsWith('PurgeRole'));
  const [repairRoleId] = logicalIdsOf(template, 'AWS::IAM::Role').filter((id) => id.startsWith('RepairRole'));
  /** The functions behind API routes (the purge worker is not one). */
  const routeFunctions = () => [...functionByRouteKey(template).values()];

  it('has one API route per ROUTES entry, with the /api route key, and one Lambda per route (plus the purge and repair workers)', () => {
    template.resourceCountIs('AWS::ApiGatewayV2::Route', ROUTES.length);
    template.resourceCountIs('AWS::Lambda::Function', ROUTES.length + 2);
    const routes = functionByRouteKey(template);
    expect([...routes.keys()].sort()).toEqual(ROUTES.map(routeKey).sort());
    // Every route reaches a function of its own.
    expect(new Set(routes.values()).size).toBe(ROUTES.length);
    template.hasResourceProperties('AWS::ApiGatewayV2::Route', { RouteKey: 'GET /api/space' });
  });

  it('runs every function on nodejs22.x, arm64, with the shared JSON log group', () => {
    const [logGroupId] = logicalIdsOf(template, 'AWS::Logs::LogGroup');
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
    // One log group for all: none per function.
    template.resourceCountIs('AWS::Logs::LogGroup', 1);
    template.hasResourceProperties('AWS::Logs::LogGroup', { RetentionInDays: 7 });
  });

  it('gives every function the environment the handlers read', () => {
    const [tableId] = logicalIdsOf(template, 'AWS::DynamoDB::Table');
    const [secretId] = logicalIdsOf(template, 'AWS::SecretsManager::Secret');
    const byKey = functionByRouteKey(template);
    const [queueId] = logicalIdsOf(template, 'AWS::SQS::Queue').filter((id) => id.includes('Queue'));
    for (const route of ROUTES) {
      const fn = byKey.get(routeKey(route)) as Resource;
      const env = (fn.Properties?.Environment as { Variables: unknown } | undefined)?.Variables;
      expect(env, routeKey(route)).toEqual({
        ...((route as RouteDef).purges
          ? { PURGE_QUEUE_URL: { Ref: queueId }, PURGE_DELAY_SECONDS: '30' }
          : {}),
        TABLE_NAME: { Ref: tableId },
        STAGE: 'dev',
        SIGNING_KEYS_SECRET_ARN: { Ref: secretId },
        JWT_ISSUER: 'workspace-api-dev',
        JWT_AUDIENCE: 'workspace-api-dev',
        MAIL_FROM: stageConfig('dev').mailFrom,
        POWERTOOLS_SERVICE_NAME: 'workspace-api',
        POWERTOOLS_LOG_LEVEL: 'DEBUG',
        AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
        NODE_OPTIONS: '--enable-source-maps',
      });
    }
  });

  it('builds the table from TABLE_DEFINITION: string pk/sk, on demand, TTL, the same GSIs', () => {
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

  it('outputs the API URL with /api and the table name', () => {
    template.hasOutput('ApiUrl', {
      Value: { 'Fn::Join': ['', [{ 'Fn::GetAtt': [Match.anyValue(), 'ApiEndpoint'] }, '/api']] },
    });
    template.hasOutput('TableName', { Value: { Ref: Match.anyValue() } });
  });

  it('has exactly six function roles: read, write, write plus mail, write plus enqueue, the purge and repair workers', () => {
    template.resourceCountIs('AWS::IAM::Role', 6);
    expect(repairRoleId).toBeDefined();
    expect(readRoleId).toBeDefined();
    expect(writeRoleId).toBeDefined();
    expect(mailRoleId).toBeDefined();
    expect(purgeRoleId).toBeDefined();
    expect(workerRoleId).toBeDefined();
    // Grants are inline in the roles: no extra policy resources.
    template.resourceCountIs('AWS::IAM::Policy', 0);
  });

  it('has no IAM statement with a wildcard action', () => {
    const actions = allStatements(template).flatMap(actionsOf);
    expect(actions.length).toBeGreaterThan(0);
    expect(actions.filter((a) => a.includes('*'))).toEqual([]);
  });

  it('gives the read role no write action except the conditioned lastUsedTime update', () => {
    const statements = roleStatements(template, readRoleId as string);
    const actions = statements.flatMap(actionsOf);
    for (const forbidden of ['dynamodb:PutItem', 'dynamodb:DeleteItem', 'dynamodb:BatchWriteItem']) {
      expect(actions).not.toContain(forbidden);
    }
    const updates = statements.filter((s) => actionsOf(s).includes('dynamodb:UpdateItem'));
    expect(updates).toHaveLength(1);
    expect(actionsOf(updates[0] as Statement)).toEqual(['dynamodb:UpdateItem']);
    expect(updates[0]?.Condition).toEqual({
      'ForAllValues:StringEquals': { 'dynamodb:Attributes': READ_ROLE_UPDATABLE_ATTRIBUTES },
      'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['USER#*'] },
    });
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
      const role = (route as RouteDef).sendsMail
        ? mailRoleId
        : (route as RouteDef).purges
          ? purgeRoleId
          : route.access === 'read'
            ? readRoleId
            : writeRoleId;
      expect(fn?.Properties?.Role, routeKey(route)).toEqual({ 'Fn::GetAtt': [role, 'Arn'] });
    }
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
    expect(Object.keys(queues)).toHaveLength(2);
    const [dlqId] = logicalIdsOf(template, 'AWS::SQS::Queue').filter((id) => id.includes('DeadLetters'));
    const [queueId] = logicalIdsOf(template, 'AWS::SQS::Queue').filter((id) => !id.includes('DeadLetters'));
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
      Role: { 'Fn::GetAtt': [workerRoleId, 'Arn'] },
    });
    expect((worker.Properties?.Environment as { Variables: object } | undefined)?.Variables).toMatchObject({
      PURGE_QUEUE_URL: { Ref: queueId },
      PURGE_DELAY_SECONDS: '0',
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

  it('lets only the routes that delete for good enqueue purges, and only the worker consume them', () => {
    const queueArn = (id: string | undefined) => ({ 'Fn::GetAtt': [id, 'Arn'] });
    const [queueId] = logicalIdsOf(template, 'AWS::SQS::Queue').filter((id) => !id.includes('DeadLetters'));
    const sqsStatements = allStatements(template).filter((s) =>
      actionsOf(s).some((a) => a.startsWith('sqs:')),
    );
    const purgeStatements = roleStatements(template, purgeRoleId as string);
    const workerStatements = roleStatements(template, workerRoleId as string);
    const enqueue = purgeStatements.filter((s) => actionsOf(s).some((a) => a.startsWith('sqs:')));
    const consume = workerStatements.filter((s) => actionsOf(s).some((a) => a.startsWith('sqs:')));
    expect(sqsStatements).toEqual([...enqueue, ...consume]);
    expect(enqueue).toEqual([
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
      'reset-trash-items',
    ]);
  });

  it('stays well under the 500-resource limit with the current routes', () => {
    const count = Object.keys(resourcesOf(template)).length;
    console.log(`dev template: ${ROUTES.length} routes, ${count} resources`);
    expect(count).toBeLessThan(500);
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

  it('throttles with the prod limits and names issuer and audience after the stage', () => {
    const { rateLimit, burstLimit } = stageConfig('prod').throttle;
    template.hasResourceProperties('AWS::ApiGatewayV2::Stage', {
      DefaultRouteSettings: { ThrottlingRateLimit: rateLimit, ThrottlingBurstLimit: burstLimit },
    });
    for (const fn of Object.values(template.findResources('AWS::Lambda::Function'))) {
      const env = fn.Properties.Environment.Variables;
      expect(env).toMatchObject({ STAGE: 'prod', POWERTOOLS_LOG_LEVEL: 'INFO' });
      // every route checks tokens; the purge worker (no signing keys) checks none
      if (env.SIGNING_KEYS_SECRET_ARN) expect(env.JWT_ISSUER).toBe('workspace-api-prod');
      else expect(fn.Properties.Description).toMatch(/^(Purge|Repair) worker:/);
    }
  });
});

describe('stage configuration and app', () => {
  it('builds the prod stack from `-c stage=prod` with a name containing the stage', () => {
    const { stack } = createApp({ context: { ...CDK_CONTEXT, stage: 'prod' } });
    expect(stack.stackName).toBe('WorkspaceApi-prod');
    expect(stack.stackName).toContain('prod');
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
  const SYNTHETIC_ROUTES = 90;
  let root: string;

  // A throwaway project whose functions/ holds one stub per synthetic route (NodejsFunction checks entries exist).
  beforeAll(() => {
    root = mkdtempSync(path.join(tmpdir(), 'workspace-api-budget-'));
    mkdirSync(path.join(root, 'functions', 'workers'), { recursive: true });
    copyFileSync(path.join(PROJECT_ROOT, 'package-lock.json'), path.join(root, 'package-lock.json'));
    // Every stack has the repair worker.
    writeFileSync(
      path.join(root, 'functions', 'workers', 'repair-worker.ts'),
      'export const handler = async () => ({});\n',
    );
    for (let i = 0; i < SYNTHETIC_ROUTES; i++) {
      writeFileSync(
        path.join(root, 'functions', `synthetic-${i}.ts`),
        'export const handler = async () => ({});\n',
      );
    }
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it(`fits ${SYNTHETIC_ROUTES} routes in one stack, under 500 resources`, () => {
    const methods = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;
    const routes: RouteDef[] = Array.from({ length: SYNTHETIC_ROUTES }, (_, i) => ({
      method: methods[i % methods.length] as RouteDef['method'],
      path: `/synthetic/{id}/r${i}`,
      handler: `synthetic-${i}`,
      access: i % 2 ? 'write' : 'read',
      actions: [],
      summary: `synthetic route ${i}`,
    }));
    const template = synth('dev', routes, root);
    const count = Object.keys(resourcesOf(template)).length;
    console.log(`synthetic template: ${SYNTHETIC_ROUTES} routes, ${count} resources`);
    // The routes plus the repair worker (the synthetic routes purge nothing: no purge worker).
    template.resourceCountIs('AWS::Lambda::Function', SYNTHETIC_ROUTES + 1);
    template.resourceCountIs('AWS::IAM::Role', 3);
    expect(count).toBeLessThan(500);
  });
});
