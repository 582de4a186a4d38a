import { RemovalPolicy } from 'aws-cdk-lib';
import { RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { PowertoolsMode } from './observability.ts';

/** Everything that differs between deployments of the stack, one object per stage. */
export interface StageConfig {
  /** The stage name: in the stack name, the JWT issuer and the STAGE env var. */
  stage: string;
  /** What CloudFormation does with the table, the secret and the logs when they leave the stack. */
  removalPolicy: RemovalPolicy;
  pointInTimeRecovery: boolean;
  deletionProtection: boolean;
  /** Default-stage throttling of the HTTP API, for every route (requests per second, burst). */
  throttle: { rateLimit: number; burstLimit: number };
  logRetention: RetentionDays;
  /** Powertools log level of the handlers. */
  logLevel: 'DEBUG' | 'INFO' | 'WARN' | 'ERROR';
  lambda: { memoryMb: number; timeoutSeconds: number };
  /** Sender address of the mail the API sends (SES, later). */
  mailFrom: string;
  /**
   * Origins a browser may call the API from (CORS on the HTTP API): `['*']` for any, exact
   * origins (`https://app.example.com`) otherwise; empty for none: no CORS at all, browsers refused.
   */
  corsOrigins: readonly string[];
  /**
   * Alarm thresholds (infra/monitoring.ts), over 5-minute periods; `captureLagMs`: how far the
   * change capture may fall behind the table's writes (the stream's iterator age, at its maximum).
   */
  alarms: {
    serverErrorPercent: number;
    p99LatencyMs: number;
    captureLagMs: number;
    evaluationPeriods: number;
  };
  /**
   * How the Lambdas get Powertools (infra/observability.ts): the Powertools layer (deploys), or
   * bundled (`-c powertools=bundled`, for `sam local`).
   */
  powertools: PowertoolsMode;
  /** Days the change log keeps an entry (1..365; data-flow.md 1). */
  changeLogDays: number;
  /**
   * Who may sign up with `POST /auth/signup`: anyone (`open`) or no one (`closed`: users are made
   * by an admin or `npm run user:create`). Closed unless a stage opens it.
   */
  signup: 'open' | 'closed';
  /**
   * Where a Teable web app serves its pages (`https://web.example.com`, an origin: no path). Set,
   * the stack puts a CloudFront distribution in front of it and both APIs (`infra/web-distribution.ts`:
   * `/api/*`, `/socket`, the rest to this origin; output `WebUrl`), the one origin people open;
   * cookie-carried writes from this origin itself are taken too. Unset: no distribution, and
   * cookie-carried writes only from the API's own host.
   */
  webOrigin?: string;
}

/** Settings of a throwaway stage: anything may be destroyed, nothing is kept long. */
const devLike = (stage: string): StageConfig => ({
  stage,
  removalPolicy: RemovalPolicy.DESTROY,
  pointInTimeRecovery: false,
  deletionProtection: false,
  throttle: { rateLimit: 50, burstLimit: 100 },
  logRetention: RetentionDays.ONE_WEEK,
  logLevel: 'DEBUG',
  // 1024 MB buys a full vCPU share on ARM: cold starts are shorter and the cost per request barely moves.
  lambda: { memoryMb: 1024, timeoutSeconds: 10 },
  mailFrom: `no-reply@${stage}.workspace.example.com`,
  // Any origin, without credentials: a page elsewhere can use only a token it holds; the session
  // cookie is never sent cross-origin with '*' (and a cookie-carried write checks its Origin).
  corsOrigins: ['*'],
  alarms: { serverErrorPercent: 5, p99LatencyMs: 5000, captureLagMs: 60_000, evaluationPeriods: 3 },
  powertools: 'layer',
  changeLogDays: 30,
  signup: 'closed',
});

const prod: StageConfig = {
  stage: 'prod',
  removalPolicy: RemovalPolicy.RETAIN,
  pointInTimeRecovery: true,
  deletionProtection: true,
  throttle: { rateLimit: 500, burstLimit: 1000 },
  logRetention: RetentionDays.THREE_MONTHS,
  logLevel: 'INFO',
  lambda: { memoryMb: 1024, timeoutSeconds: 10 },
  mailFrom: 'no-reply@workspace.example.com',
  // None until the web app's origin is known: list it here (exact scheme, host and port).
  corsOrigins: [],
  alarms: { serverErrorPercent: 1, p99LatencyMs: 3000, captureLagMs: 30_000, evaluationPeriods: 2 },
  powertools: 'layer',
  changeLogDays: 30,
  signup: 'closed',
};

/** Stage names end up in a CloudFormation stack name and in resource names: keep them plain. */
const STAGE_NAME = /^[a-z][a-z0-9-]{0,24}$/;

/** The configuration of a stage: `prod` as defined, any other name dev-like under its own name. */
export const stageConfig = (stage: string): StageConfig => {
  if (!STAGE_NAME.test(stage)) {
    throw new Error(
      `Invalid stage name "${stage}": lower-case letters, digits and dashes, starting with a letter`,
    );
  }
  return stage === 'prod' ? prod : devLike(stage);
};

/** The CloudFormation stack name of a stage. */
export const stackNameFor = (stage: string): string => `WorkspaceApi-${stage}`;

/** Issuer and audience of the temporary JWTs of a stage: a token of one stage is refused by another. */
export const jwtIssuerFor = (stage: string): string => `workspace-api-${stage}`;
