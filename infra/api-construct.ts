import * as path from 'node:path';
import { Duration, Stack } from 'aws-cdk-lib';
import { CorsHttpMethod, type CorsPreflightOptions } from 'aws-cdk-lib/aws-apigatewayv2';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { type BundlingOptions, NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import * as logs from 'aws-cdk-lib/aws-logs';
import type * as s3 from 'aws-cdk-lib/aws-s3';
import type { ISecret } from 'aws-cdk-lib/aws-secretsmanager';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { PARTITION_PATTERNS, SESSION_TOUCH_ATTRIBUTES } from '#shared/entities/partition-patterns.ts';
import {
  CORS_ALLOW_HEADERS,
  CORS_ALLOW_METHODS,
  CORS_EXPOSE_HEADERS,
  CORS_MAX_AGE_SECONDS,
} from '#shared/http/cors.ts';
import { API_PREFIX, type RouteDef } from '#shared/routes.ts';
import { bundlingFor, LAMBDA_BUNDLING } from './bundling.ts';
import { type FunctionEnvironment, lambdaEnvironment } from './lambda-environment.ts';
import { powertoolsFor, traceActively, xrayStatement } from './observability.ts';
import { jwtIssuerFor, type StageConfig } from './stage-config.ts';

/**
 * Seconds a purge waits after the delete: longer than any route's run, so a write that passed
 * its permission check just before the delete has landed before the purge reads what to delete.
 */

/** The grant of route Lambdas to invoke the repair worker (asynchronously: a wake). */
const WAKE_REPAIR_WORKER = 'WakeRepairWorker';
export const PURGE_DELAY_SECONDS = 30;

export type TableAccess = RouteDef['access'];

/**
 * The HTTP API's CORS (`corsPreflight`) for a stage: the policy of `shared/http/cors.ts`, which the
 * local server applies too, with the stage's origins; undefined (no CORS) when it allows none.
 */
export const corsPreflightFor = (
  config: Pick<StageConfig, 'corsOrigins'>,
): CorsPreflightOptions | undefined =>
  config.corsOrigins.length
    ? {
        allowOrigins: [...config.corsOrigins],
        allowMethods: CORS_ALLOW_METHODS.map((method) => CorsHttpMethod[method]),
        allowHeaders: [...CORS_ALLOW_HEADERS],
        exposeHeaders: [...CORS_EXPOSE_HEADERS],
        maxAge: Duration.seconds(CORS_MAX_AGE_SECONDS),
      }
    : undefined;

export interface ApiFunctionsProps {
  config: StageConfig;
  table: ITable;
  /** Names of the table's global secondary indexes: their ARNs get the same grants as the table. */
  indexNames: readonly string[];
  signingKeys: ISecret;
  /** The attachments bucket: every Lambda reads its objects (download URLs), `files` routes write them. */
  bucket: s3.IBucket;
  /** Repository root: holds `functions/`, `package.json` and `package-lock.json`. */
  projectRoot: string;
}

/** Read routes may write one thing: the hourly refresh of a token's `lastUsedTime` (see authenticate.ts). */
export const READ_ROLE_UPDATABLE_ATTRIBUTES = ['pk', 'sk', 'lastUsedTime'];
/** Tokens live under their user's partition. */
export const READ_ROLE_UPDATABLE_LEADING_KEYS = [PARTITION_PATTERNS.userPartition];
/** Sessions, passwords and sign-in counts: written by the auth routes (`sessions: true`) only. */
export const LOGIN_LEADING_KEYS = [PARTITION_PATTERNS.logins, PARTITION_PATTERNS.signInAttempts];
/** What any other route may update in a login partition: a session's touch. */
export const SESSION_TOUCH_UPDATABLE_ATTRIBUTES = ['pk', 'sk', ...SESSION_TOUCH_ATTRIBUTES];
/**
 * Read routes may also keep a listing's computed order for its later pages (listing/kept-orders.ts),
 * hand an order too long to compute in a request to the worker (listing/order-computation.ts) and
 * ask for a view's index to be built (records/view-indexes/upkeep.ts).
 */
export const READ_ROLE_WRITABLE_LEADING_KEYS = [
  PARTITION_PATTERNS.queryOrders,
  PARTITION_PATTERNS.queryComputationWants,
  PARTITION_PATTERNS.viewIndexWants,
];

export const READ_ACTIONS = [
  'dynamodb:GetItem',
  'dynamodb:BatchGetItem',
  'dynamodb:Query',
  'dynamodb:ConditionCheckItem',
];
// TransactWriteItems has no IAM action of its own: each item is checked as Put/Update/Delete/ConditionCheck.
const WRITE_ACTIONS = [
  ...READ_ACTIONS,
  'dynamodb:PutItem',
  'dynamodb:UpdateItem',
  'dynamodb:DeleteItem',
  'dynamodb:BatchWriteItem',
];

/** `get-space` → `GetSpace`: construct ids, hence readable logical ids. */
const pascalCase = (name: string): string =>
  name
    .split(/[^a-zA-Z0-9]+/)
    .filter(Boolean)
    .map((part) => part[0]?.toUpperCase() + part.slice(1))
    .join('');

/**
 * Every Lambda default in one place: runtime, architecture, memory, timeout, bundling, environment,
 * and the logging and IAM resources they share.
 *
 * To stay far from CloudFormation's 500-resource limit, functions share one log group and one role
 * per access level: a route costs only its function, integration, route and invoke permission
 * (in its nested stack, infra/route-stacks.ts).
 */
export class ApiFunctions extends Construct {
  /** The one log group every function writes its JSON logs to. */
  readonly logGroup: logs.LogGroup;
  private readonly props: ApiFunctionsProps;
  private readonly roles = new Map<TableAccess, iam.Role>();

  constructor(scope: Construct, id: string, props: ApiFunctionsProps) {
    super(scope, id);
    this.props = props;
    this.logGroup = new logs.LogGroup(this, 'Logs', {
      retention: props.config.logRetention,
      removalPolicy: props.config.removalPolicy,
    });
  }

  /** The shared role of an access level (created on first use), granting only what such a route needs. */
  bindTable(access: TableAccess): iam.IRole {
    let role = this.roles.get(access);
    if (!role) {
      role = new iam.Role(this, access === 'read' ? 'ReadRole' : 'WriteRole', {
        assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com'),
        description: `Workspace API ${this.props.config.stage}: Lambdas of ${access} routes`,
        // Inline, not attached: no AWS::IAM::Policy resource per role, and no wildcard-resource managed policy.
        inlinePolicies: { Access: new iam.PolicyDocument({ statements: this.statementsFor(access) }) },
      });
      this.roles.set(access, role);
    }
    return role;
  }

  /**
   * The Lambda of a route: `functions/<handler>.ts`, bundled with the shared options, with its access
   * level's role. `scope`: where it goes (the route's nested stack); roles and log group stay here.
   */
  addFunction(route: RouteDef, scope: Construct = this): NodejsFunction {
    const { config, table } = this.props;
    return this.lambda(scope, pascalCase(route.handler), {
      entry: `${route.handler}.ts`,
      description: `${route.method} ${API_PREFIX}${route.path}`,
      timeout: Duration.seconds(config.lambda.timeoutSeconds),
      role: route.sessions
        ? this.sessionsRole()
        : route.webhooks
          ? this.webhooksRole(route.access)
          : route.sendsMail
            ? this.mailRole(route.access)
            : route.purges
              ? this.purgeRole(route.access)
              : route.files === 'write'
                ? this.filesRole(route.access)
                : route.files === 'export'
                  ? this.exportRole(route.access)
                  : this.bindTable(route.access),
      bundling: bundlingFor(route.handler),
      environment: {
        TABLE_NAME: table.tableName,
        ...this.signingEnvironment(),
        ...this.sessionEnvironment(),
        MAIL_FROM: config.mailFrom,
        ...(route.purges ? this.purgeEnvironment() : {}),
        // routes that confirm files send the worker their images' thumbnails to make, and
        // exports too large for a request are handed to it
        ...(route.files ? { PURGE_QUEUE_URL: this.requirePurgeQueue().queueUrl } : {}),
        // routes that redeliver or enable a webhook wake the base's webhooks
        ...(route.webhooks ? { WEBHOOK_QUEUE_URL: this.requireWebhookQueue().queueUrl } : {}),
        // a listing that hands its order to the repair worker wakes it (shared/jobs/worker-wake.ts)
        ...(this.repairWorker ? { REPAIR_WORKER_FUNCTION: this.repairWorker.functionName } : {}),
      },
    });
  }

  /**
   * A Lambda of the stack, route or worker, with the defaults all share: Node 22 on arm64, the
   * stage's memory, JSON logs in the shared group, Powertools (layer or bundled), X-Ray tracing,
   * and every environment variable declared (`lambdaEnvironment`). `entry`: the file under
   * `functions/`.
   */
  lambda(
    scope: Construct,
    id: string,
    spec: {
      entry: string;
      description: string;
      timeout: Duration;
      role: iam.IRole;
      bundling: BundlingOptions;
      environment: FunctionEnvironment;
      reservedConcurrentExecutions?: number;
      /** More than the stage's memory (a worker that decodes images). */
      memorySize?: number;
    },
  ): NodejsFunction {
    const { config, projectRoot } = this.props;
    const fn = new NodejsFunction(scope, id, {
      entry: path.join(projectRoot, 'functions', spec.entry),
      handler: 'handler',
      projectRoot,
      depsLockFilePath: path.join(projectRoot, 'package-lock.json'),
      description: spec.description,
      runtime: lambda.Runtime.NODEJS_22_X,
      architecture: lambda.Architecture.ARM_64,
      memorySize: Math.max(spec.memorySize ?? 0, config.lambda.memoryMb),
      timeout: spec.timeout,
      ...(spec.reservedConcurrentExecutions === undefined
        ? {}
        : { reservedConcurrentExecutions: spec.reservedConcurrentExecutions }),
      role: spec.role,
      loggingFormat: lambda.LoggingFormat.JSON,
      logGroup: this.logGroup,
      ...powertoolsFor(scope, spec.bundling, config.powertools),
      environment: lambdaEnvironment({
        STAGE: config.stage,
        POWERTOOLS_LOG_LEVEL: config.logLevel,
        ATTACHMENTS_BUCKET: this.props.bucket.bucketName,
        ...spec.environment,
      }),
    });
    return traceActively(fn);
  }

  /**
   * The Lambda of the HTTP API's `$default` route (`functions/gateway/unmatched-request.ts`): a
   * request no route takes gets a 405 with `Allow` or a 404, with the contract's error body. Its
   * role may write logs and traces only: it reads nothing.
   */
  unmatchedRequests(scope: Construct): NodejsFunction {
    const role = new iam.Role(scope, 'UnmatchedRole', {
      assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com'),
      description: `Workspace API ${this.props.config.stage}: answers requests no route takes`,
      inlinePolicies: {
        Access: new iam.PolicyDocument({
          statements: this.statementsFor('read').filter((s) => s.sid === 'Logs' || s.sid === 'Traces'),
        }),
      },
    });
    return this.lambda(scope, 'Unmatched', {
      entry: 'gateway/unmatched-request.ts',
      description: 'The $default route: 405 with Allow for a known path, else 404',
      timeout: Duration.seconds(5),
      role,
      bundling: LAMBDA_BUNDLING,
      environment: {},
    });
  }

  /** The queue of the webhook sender; set (infra/webhook-sender-construct.ts) before the routes that wake webhooks. */
  webhookQueue: sqs.IQueue | undefined;

  requireWebhookQueue(): sqs.IQueue {
    if (!this.webhookQueue)
      throw new Error('add the webhook sender before the routes and the stream processor');
    return this.webhookQueue;
  }

  private webhooksRoleOf: iam.Role | undefined;

  /**
   * The role of routes that wake a base's webhooks (`webhooks: true`): write access to the table
   * plus `sqs:SendMessage` on the webhook queue only. One role for all such routes.
   */
  webhooksRole(access: TableAccess): iam.IRole {
    if (access !== 'write') throw new Error('routes that wake webhooks are write routes');
    this.webhooksRoleOf ??= new iam.Role(this, 'WebhooksRole', {
      assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com'),
      description: `Workspace API ${this.props.config.stage}: Lambdas that wake webhooks`,
      inlinePolicies: {
        Access: new iam.PolicyDocument({
          statements: [
            ...this.statementsFor(access),
            new iam.PolicyStatement({
              sid: 'WakeWebhooks',
              actions: ['sqs:SendMessage'],
              resources: [this.requireWebhookQueue().queueArn],
            }),
          ],
        }),
      },
    });
    return this.webhooksRoleOf;
  }

  /**
   * The repair worker; set (infra/repair-worker-construct.ts) before the routes are added: every
   * route may wake it (`WakeRepairWorker`), as any listing may hand it an order to compute.
   */
  repairWorker: lambda.IFunction | undefined;

  /** The queue of the purge worker; set (infra/purge-worker-construct.ts) before the routes that purge are added. */
  purgeQueue: sqs.IQueue | undefined;

  private purgeRoleOf: iam.Role | undefined;

  private requirePurgeQueue(): sqs.IQueue {
    if (!this.purgeQueue) throw new Error('add the purge worker before the routes that purge');
    return this.purgeQueue;
  }

  /** What a route that purges reads: the queue, and the grace delay before a purge starts. */
  private purgeEnvironment(): FunctionEnvironment {
    return {
      PURGE_QUEUE_URL: this.requirePurgeQueue().queueUrl,
      PURGE_DELAY_SECONDS: String(PURGE_DELAY_SECONDS),
    };
  }

  /**
   * The role of routes that delete for good: their table access plus `sqs:SendMessage` on the
   * purge queue only. One role for all such routes; no other route may enqueue.
   */
  purgeRole(access: TableAccess): iam.IRole {
    if (access !== 'write') throw new Error('routes that purge are write routes');
    const queue = this.requirePurgeQueue();
    this.purgeRoleOf ??= new iam.Role(this, 'PurgeRole', {
      assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com'),
      description: `Workspace API ${this.props.config.stage}: Lambdas that delete for good`,
      inlinePolicies: {
        Access: new iam.PolicyDocument({
          statements: [
            ...this.statementsFor(access),
            new iam.PolicyStatement({
              sid: 'EnqueuePurge',
              actions: ['sqs:SendMessage'],
              resources: [queue.queueArn],
            }),
          ],
        }),
      },
    });
    return this.purgeRoleOf;
  }

  /** The ARN of every object of the attachments bucket (for workers that remove files). */
  fileObjectsArn(): string {
    return this.props.bucket.arnForObjects('*');
  }

  /** The statements of a role with this table access (the workers' roles build on them; no worker wakes the repair worker). */
  tableStatements(access: TableAccess): iam.PolicyStatement[] {
    return this.statementsFor(access).filter((s) => s.sid !== WAKE_REPAIR_WORKER);
  }

  /** What a Lambda that authenticates tokens reads: the signing keys' secret, the issuer and audience. */
  signingEnvironment(): FunctionEnvironment {
    const issuer = jwtIssuerFor(this.props.config.stage);
    return {
      SIGNING_KEYS_SECRET_ARN: this.props.signingKeys.secretArn,
      JWT_ISSUER: issuer,
      JWT_AUDIENCE: issuer,
    };
  }

  /**
   * The WebSocket APIs added so far (infra/websocket-api.ts: `/api/live`'s, the realtime
   * socket's): the stream processor posts to their connections (their callback URLs and grants).
   */
  readonly websocketApis: { callbackVariable: string; callbackUrl: string; manage: iam.PolicyStatement }[] =
    [];

  /**
   * The role of routes that send mail: their table access plus `ses:SendEmail`, only from the
   * stage's sender (its address and domain identities, and `ses:FromAddress` fixed to it). One
   * role for all such routes; no other Lambda may send mail.
   */
  mailRole(access: TableAccess): iam.IRole {
    if (access !== 'write') throw new Error('routes that send mail are write routes');
    this.mailRoleOf ??= new iam.Role(this, 'MailRole', {
      assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com'),
      description: `Workspace API ${this.props.config.stage}: Lambdas that send mail`,
      inlinePolicies: {
        Access: new iam.PolicyDocument({
          statements: [...this.statementsFor(access), ...this.mailStatements()],
        }),
      },
    });
    return this.mailRoleOf;
  }

  private mailRoleOf: iam.Role | undefined;

  private filesRoleOf: iam.Role | undefined;

  /**
   * The role of routes that write files (`files: 'write'`): write access to the table plus putting
   * and deleting objects of the attachments bucket, and nothing else of S3, and sending the purge
   * worker the thumbnails to make of a confirmed image. One role for all such routes; no other
   * route may write to the bucket.
   */
  filesRole(access: TableAccess): iam.IRole {
    if (access !== 'write') throw new Error('routes that write files are write routes');
    this.filesRoleOf ??= new iam.Role(this, 'FilesRole', {
      assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com'),
      description: `Workspace API ${this.props.config.stage}: Lambdas that write files`,
      inlinePolicies: {
        Access: new iam.PolicyDocument({
          statements: [
            ...this.statementsFor(access),
            new iam.PolicyStatement({
              sid: 'WriteFiles',
              actions: ['s3:PutObject', 's3:DeleteObject'],
              resources: [this.props.bucket.arnForObjects('*')],
            }),
            new iam.PolicyStatement({
              sid: 'StartThumbnails',
              actions: ['sqs:SendMessage'],
              resources: [this.requirePurgeQueue().queueArn],
            }),
          ],
        }),
      },
    });
    return this.filesRoleOf;
  }

  private exportRoleOf: iam.Role | undefined;

  /**
   * The role of routes that write exports (`files: 'export'`): read access to the table plus
   * writing objects under `export/` of the attachments bucket (in parts: put, and abort), nothing
   * else of S3; and, for an export too large for a request, handing it to the purge worker: putting
   * the export's item and its job item (their partitions only) and sending the job. One role for
   * all such routes.
   */
  exportRole(access: TableAccess): iam.IRole {
    if (access !== 'read') throw new Error('routes that export are read routes');
    this.exportRoleOf ??= new iam.Role(this, 'ExportRole', {
      assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com'),
      description: `Workspace API ${this.props.config.stage}: Lambdas that write exports`,
      inlinePolicies: {
        Access: new iam.PolicyDocument({
          statements: [
            ...this.statementsFor(access),
            new iam.PolicyStatement({
              sid: 'WriteExports',
              actions: ['s3:PutObject', 's3:AbortMultipartUpload'],
              resources: [this.props.bucket.arnForObjects('export/*')],
            }),
            new iam.PolicyStatement({
              sid: 'HandOverExports',
              actions: ['dynamodb:PutItem'],
              resources: [this.props.table.tableArn],
              conditions: {
                'ForAllValues:StringLike': {
                  'dynamodb:LeadingKeys': [PARTITION_PATTERNS.exportFiles, PARTITION_PATTERNS.purgeJobs],
                },
              },
            }),
            new iam.PolicyStatement({
              sid: 'StartExports',
              actions: ['sqs:SendMessage'],
              resources: [this.requirePurgeQueue().queueArn],
            }),
          ],
        }),
      },
    });
    return this.exportRoleOf;
  }

  /** What every route needs to know of sessions: cookies are Secure, the web app's origin, who may sign up. */
  sessionEnvironment(): FunctionEnvironment {
    const { config } = this.props;
    return { COOKIE_SECURE: 'true', WEB_ORIGIN: config.webOrigin ?? '', SIGNUP: config.signup };
  }

  private sessionsRoleOf: iam.Role | undefined;
  /**
   * The role of the auth routes (`sessions: true`): the write routes' grants without their one
   * denial, so these Lambdas alone may put and delete sessions, passwords and sign-in counts.
   */
  sessionsRole(): iam.IRole {
    this.sessionsRoleOf ??= new iam.Role(this, 'SessionsRole', {
      assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com'),
      description: `Workspace API ${this.props.config.stage}: Lambdas that sign in and out`,
      inlinePolicies: {
        Access: new iam.PolicyDocument({ statements: this.statementsFor('write', { sessions: true }) }),
      },
    });
    return this.sessionsRoleOf;
  }

  private mailStatements(): iam.PolicyStatement[] {
    const from = this.props.config.mailFrom;
    const identity = (name: string) =>
      Stack.of(this).formatArn({ service: 'ses', resource: 'identity', resourceName: name });
    return [
      new iam.PolicyStatement({
        sid: 'SendMail',
        actions: ['ses:SendEmail'],
        resources: [identity(from), identity(from.slice(from.lastIndexOf('@') + 1))],
        conditions: { StringEquals: { 'ses:FromAddress': from } },
      }),
    ];
  }

  private statementsFor(access: TableAccess, options: { sessions?: boolean } = {}): iam.PolicyStatement[] {
    const { table, indexNames, signingKeys } = this.props;
    const tableResources = [table.tableArn, ...indexNames.map((name) => `${table.tableArn}/index/${name}`)];
    const statements = [
      new iam.PolicyStatement({
        sid: 'Logs',
        actions: ['logs:CreateLogStream', 'logs:PutLogEvents'],
        // The log group's Arn attribute ends in `:*`, which covers its streams.
        resources: [this.logGroup.logGroupArn],
      }),
      xrayStatement(),
      new iam.PolicyStatement({
        sid: 'SigningKeys',
        actions: ['secretsmanager:GetSecretValue'],
        resources: [signingKeys.secretArn],
      }),
      new iam.PolicyStatement({
        sid: 'Table',
        actions: access === 'write' ? WRITE_ACTIONS : READ_ACTIONS,
        resources: tableResources,
      }),
      // the download URLs of attachment cells are signed with this grant (no S3 call is made)
      new iam.PolicyStatement({
        sid: 'ReadFiles',
        actions: ['s3:GetObject'],
        resources: [this.props.bucket.arnForObjects('*')],
      }),
    ];
    if (this.repairWorker)
      statements.push(
        new iam.PolicyStatement({
          sid: WAKE_REPAIR_WORKER,
          actions: ['lambda:InvokeFunction'],
          resources: [this.repairWorker.functionArn],
        }),
      );
    if (access === 'write' && !options.sessions)
      statements.push(
        // sessions and passwords are the auth routes' alone: any other write role may only slide
        // a session's expiry (the attributes of a touch), never make, change or end one
        new iam.PolicyStatement({
          sid: 'NoSessionWrites',
          effect: iam.Effect.DENY,
          actions: ['dynamodb:PutItem', 'dynamodb:DeleteItem', 'dynamodb:BatchWriteItem'],
          resources: [table.tableArn],
          conditions: { 'ForAnyValue:StringLike': { 'dynamodb:LeadingKeys': LOGIN_LEADING_KEYS } },
        }),
        new iam.PolicyStatement({
          sid: 'OnlyTouchSessions',
          effect: iam.Effect.DENY,
          actions: ['dynamodb:UpdateItem'],
          resources: [table.tableArn],
          conditions: {
            'ForAnyValue:StringLike': { 'dynamodb:LeadingKeys': LOGIN_LEADING_KEYS },
            'ForAnyValue:StringNotEquals': { 'dynamodb:Attributes': SESSION_TOUCH_UPDATABLE_ATTRIBUTES },
          },
        }),
      );
    if (access === 'read') {
      statements.push(
        new iam.PolicyStatement({
          sid: 'TouchToken',
          actions: ['dynamodb:UpdateItem'],
          resources: [table.tableArn],
          conditions: {
            'ForAllValues:StringEquals': { 'dynamodb:Attributes': READ_ROLE_UPDATABLE_ATTRIBUTES },
            'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': READ_ROLE_UPDATABLE_LEADING_KEYS },
          },
        }),
        // a session used an hour after its last use slides its expiry (shared/users/sessions.ts)
        new iam.PolicyStatement({
          sid: 'TouchSession',
          actions: ['dynamodb:UpdateItem'],
          resources: [table.tableArn],
          conditions: {
            'ForAllValues:StringEquals': { 'dynamodb:Attributes': SESSION_TOUCH_UPDATABLE_ATTRIBUTES },
            'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [PARTITION_PATTERNS.logins] },
          },
        }),
        new iam.PolicyStatement({
          sid: 'KeepListingOrders',
          actions: ['dynamodb:PutItem', 'dynamodb:BatchWriteItem'],
          resources: [table.tableArn],
          conditions: {
            'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': READ_ROLE_WRITABLE_LEADING_KEYS },
          },
        }),
      );
    }
    return statements;
  }
}
