/**
 * What `sam local` needs of the code: every environment variable the Lambdas read is declared by
 * the stack (the list in infra/lambda-environment.ts; test/infra/stack.test.ts checks every
 * function declares it), an empty variable reads as unset, and `npm start` can put DynamoDB Local
 * on a fixed port that a container is given.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  LAMBDA_ENV_VARS,
  LAMBDA_RUNTIME_ENV_VARS,
  LOCAL_ONLY_ENV_VARS,
  lambdaEnvironment,
} from '#infra/lambda-environment.ts';
import { parseStartOptions, StartUsageError } from '#infra/local/start-options.ts';

const ROOT = new URL('../../', import.meta.url).pathname;

/** Each `process.env` in the TypeScript of these folders: the variable it names, or null when it names none. */
const envReads = (...folders: string[]): { file: string; name: string | null }[] =>
  folders.flatMap((folder) =>
    (readdirSync(join(ROOT, folder), { recursive: true }) as string[])
      .filter((file) => file.endsWith('.ts'))
      .flatMap((file) => {
        const path = join(ROOT, folder, file);
        const text = readFileSync(path, 'utf8');
        return [...text.matchAll(/process\.env(?:\.([A-Za-z_]\w*)|\[\s*(['"`])([A-Za-z_]\w*)\2\s*\])?/g)].map(
          (m) => ({ file: relative(ROOT, path), name: m[1] ?? m[3] ?? null }),
        );
      }),
  );

describe('the environment variables of the Lambdas', () => {
  const reads = envReads('shared', 'functions');

  it('finds the reads of the code (the scan works)', () => {
    expect(reads.map((r) => r.name)).toEqual(
      expect.arrayContaining(['TABLE_NAME', 'SIGNING_KEYS_FILE', 'AWS_ENDPOINT_URL_DYNAMODB', 'MAIL_FROM']),
    );
  });

  it('lists every variable that shared/ and functions/ read, unless the Lambda runtime sets it', () => {
    const known = new Set<string>([...LAMBDA_ENV_VARS, ...LAMBDA_RUNTIME_ENV_VARS]);
    const missing = reads.filter((r) => r.name !== null && !known.has(r.name));
    expect(missing, 'add these to LAMBDA_ENV_VARS in infra/lambda-environment.ts').toEqual([]);
  });

  it('reads every variable by its name, so the list can be checked', () => {
    expect(reads.filter((r) => r.name === null)).toEqual([]);
  });

  it('declares no name the Lambda runtime reserves, and none twice', () => {
    const runtime = new Set<string>(LAMBDA_RUNTIME_ENV_VARS);
    expect(LAMBDA_ENV_VARS.filter((name) => runtime.has(name))).toEqual([]);
    expect(new Set(LAMBDA_ENV_VARS).size).toBe(LAMBDA_ENV_VARS.length);
  });

  it("names every variable in the README's configuration table", () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    const table = readme.slice(readme.indexOf('## Configuration'), readme.indexOf('## Where to read more'));
    expect(LAMBDA_ENV_VARS.filter((name) => !table.includes(`\`${name}\``))).toEqual([]);
  });

  it('gives a function every variable: its own values, the fixed ones, and empty for the rest', () => {
    const env = lambdaEnvironment({ TABLE_NAME: 'workspace', STAGE: 'dev' });

    expect(Object.keys(env).sort()).toEqual([...LAMBDA_ENV_VARS].sort());
    expect(env).toMatchObject({
      TABLE_NAME: 'workspace',
      STAGE: 'dev',
      POWERTOOLS_SERVICE_NAME: 'workspace-api',
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
      NODE_OPTIONS: '--enable-source-maps',
      SIGNING_KEYS_SECRET_ARN: '',
      PURGE_QUEUE_URL: '',
    });
    for (const name of LOCAL_ONLY_ENV_VARS) expect(env[name], name).toBe('');
  });
});

describe('an empty environment variable', () => {
  afterEach(() => {
    vi.unstubAllEnvs();
    vi.resetModules();
  });

  const EMPTY = [
    'STAGE',
    'SIGNING_KEYS_SECRET_ARN',
    'SIGNING_KEYS_FILE',
    'JWT_ISSUER',
    'JWT_AUDIENCE',
    'PURGE_QUEUE_URL',
    'PURGE_DELAY_SECONDS',
    'CHANGE_LOG_DAYS',
    'ATTACHMENTS_BUCKET',
    'ATTACHMENT_MAX_BYTES',
    'AWS_ENDPOINT_URL_DYNAMODB',
    'AWS_ENDPOINT_URL_S3',
    'COOKIE_SECURE',
    'WEB_ORIGIN',
    'SIGNUP',
  ];

  it('reads as unset in the configuration', async () => {
    for (const name of EMPTY) vi.stubEnv(name, '');
    vi.resetModules();

    const { config } = await import('#shared/config.ts');

    expect(config).toEqual({
      tableName: process.env.TABLE_NAME,
      stage: 'local',
      signingKeysSecretArn: undefined,
      signingKeysFile: undefined,
      jwtIssuer: 'workspace-api',
      jwtAudience: 'workspace-api',
      purgeQueueUrl: undefined,
      purgeDelaySeconds: 0,
      importPacesByLog: false,
      changeLogDays: 30,
      dynamoDbEndpoint: undefined,
      attachmentsBucket: undefined,
      s3Endpoint: undefined,
      attachmentMaxBytes: 100 * 1024 * 1024,
      secureCookies: false,
      webOrigins: [],
      signup: 'closed',
    });
  });

  it('gives the DynamoDB client no endpoint of its own: the region default, as in the cloud', async () => {
    vi.stubEnv('AWS_ENDPOINT_URL_DYNAMODB', '');
    vi.resetModules();

    const { documentClient } = await import('#shared/db/client.ts');

    expect(documentClient.config.isCustomEndpoint).toBe(false);
  });

  it('set, points the DynamoDB client at DynamoDB Local', async () => {
    vi.stubEnv('AWS_ENDPOINT_URL_DYNAMODB', 'http://host.docker.internal:8000');
    vi.resetModules();

    const { documentClient } = await import('#shared/db/client.ts');

    expect(documentClient.config.isCustomEndpoint).toBe(true);
    expect(await documentClient.config.endpoint?.()).toMatchObject({
      protocol: 'http:',
      hostname: 'host.docker.internal',
      port: 8000,
    });
  });

  it('is a missing TABLE_NAME, which fails at load', async () => {
    vi.stubEnv('TABLE_NAME', '');
    vi.resetModules();

    await expect(import('#shared/config.ts')).rejects.toThrow(
      'Missing required environment variable TABLE_NAME',
    );
  });
});

describe('npm start arguments', () => {
  it.each([
    [[], {}, { port: 3000, inMemory: false }],
    [[], { PORT: '4000' }, { port: 4000, inMemory: false }],
    [[], { PORT: '' }, { port: 3000, inMemory: false }],
    [['--port', '0'], { PORT: '4000' }, { port: 0, inMemory: false }],
    [['--dynamodb-port', '8000'], {}, { port: 3000, dynamoDbPort: 8000, inMemory: false }],
    [['--dynamodb-port=65535', '--in-memory'], {}, { port: 3000, dynamoDbPort: 65535, inMemory: true }],
    [
      ['--web', 'http://127.0.0.1:3210'],
      {},
      { port: 3000, inMemory: false, web: new URL('http://127.0.0.1:3210') },
    ],
  ])('reads %j with %j as %j', (args, env, expected) => {
    expect(parseStartOptions(args, env)).toEqual(expected);
  });

  it.each([
    [['--dynamodb-port', '0'], '--dynamodb-port must be a whole number from 1 to 65535, not "0"'],
    [['--dynamodb-port', '65536'], '--dynamodb-port must be a whole number from 1 to 65535, not "65536"'],
    [['--dynamodb-port', '80a'], '--dynamodb-port must be a whole number from 1 to 65535, not "80a"'],
    [['--dynamodb-port', '-1'], /argument missing|argument is ambiguous/],
    [['--dynamodb-port'], /argument missing/],
    [['--port', '1e3'], '--port must be a whole number from 0 to 65535, not "1e3"'],
    [['--dynamodb-host', '0.0.0.0'], /Unknown option '--dynamodb-host'/],
    [['8000'], /Unexpected argument '8000'/],
    [['--web', 'localhost:3210'], /--web must be the web app's origin/],
    [['--web', 'http://127.0.0.1:3210/app'], /--web must be the web app's origin/],
    [['--web', 'https://127.0.0.1:3210'], /--web takes an http:\/\/ origin/],
  ])('refuses %j: %s', (args, message) => {
    expect(() => parseStartOptions(args)).toThrow(StartUsageError);
    expect(() => parseStartOptions(args)).toThrow(message);
  });

  it.each([['--help'], ['-h'], ['--port', '80', '--help']])('reads %j as a request for help', (...args) => {
    expect(parseStartOptions(args)).toMatchObject({ help: true });
  });

  it('refuses a bad PORT by name', () => {
    expect(() => parseStartOptions([], { PORT: 'abc' })).toThrow(
      'PORT must be a whole number from 0 to 65535, not "abc"',
    );
  });
});
