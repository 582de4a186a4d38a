import { parseArgs } from 'node:util';

/** What `npm start` was asked for. */
export interface StartOptions {
  /** The API's port; 0 takes any free one (the tests do). */
  port: number;
  /** DynamoDB Local's port; undefined takes any free one. */
  dynamoDbPort?: number;
  inMemory: boolean;
  /** `--web <url>`: a running web app this server is the one origin of (everything outside /api and /socket goes to it). */
  web?: URL;
  /** `--help` or `-h`: print `START_HELP` and stop. */
  help?: true;
}

export const START_USAGE =
  'usage: npm start -- [--port <0-65535>] [--dynamodb-port <1-65535>] [--in-memory] [--web <url>] [--help]';

/** What `npm start -- --help` prints. */
export const START_HELP = `${START_USAGE}

Serves the API on http://127.0.0.1:<port>/api with everything it needs: DynamoDB Local (Java 17+;
downloaded once into .cache/), the table, an instance admin and its token (printed), the stream
processor (change log, webhooks, live subscriptions), a local S3-compatible server for
attachments, and the background jobs in process. Data is kept in .local/ across starts.

  --port <n>           the API's port (default: PORT, else 3000; 0 takes any free port)
  --dynamodb-port <n>  DynamoDB Local's port (default: any free port), e.g. for sam local
  --in-memory          keep nothing: DynamoDB Local in memory, a new admin token each start
  --web <url>          be the one origin of a running web app (Teable's): /api and /socket are
                       served here, every other request and WebSocket upgrade goes to <url>
  -h, --help           this text

Environment: PORT, CORS_ORIGINS (origins a browser may call from, comma-separated; * when unset),
LOCAL_DATA_DIR (default .local/), POWERTOOLS_LOG_LEVEL (default INFO: one line per request).
Ctrl-C stops everything.`;

/** A command line `npm start` cannot run with: its message is for the person who typed it. */
export class StartUsageError extends Error {}

/** A TCP port from its decimal text, within `min`..65535, or a `StartUsageError` naming `what`. Pure. */
const portOf = (text: string, what: string, min: number): number => {
  const port = /^\d{1,5}$/.test(text) ? Number(text) : Number.NaN;
  if (!(port >= min && port <= 65535))
    throw new StartUsageError(`${what} must be a whole number from ${min} to 65535, not "${text}"`);
  return port;
};

/**
 * Reads `npm start`'s arguments (and `PORT`): `--port` (else `PORT`, else 3000), `--dynamodb-port`
 * (a fixed port, so a container can be given DynamoDB Local's address), `--in-memory`, `--help`. Unknown
 * options, missing values and bad ports are a `StartUsageError`. Pure.
 */
export const parseStartOptions = (args: readonly string[], env: NodeJS.ProcessEnv = {}): StartOptions => {
  let values: {
    port?: string;
    'dynamodb-port'?: string;
    'in-memory'?: boolean;
    web?: string;
    help?: boolean;
  };
  try {
    ({ values } = parseArgs({
      args: [...args],
      options: {
        port: { type: 'string' },
        'dynamodb-port': { type: 'string' },
        'in-memory': { type: 'boolean', default: false },
        web: { type: 'string' },
        help: { type: 'boolean', short: 'h', default: false },
      },
      allowPositionals: false,
      strict: true,
    }));
  } catch (error) {
    throw new StartUsageError((error as Error).message);
  }
  if (values.help) return { port: 3000, inMemory: false, help: true };
  const apiPort = values.port ?? (env.PORT || undefined);
  const dynamoDbPort = values['dynamodb-port'];
  return {
    port: apiPort === undefined ? 3000 : portOf(apiPort, values.port === undefined ? 'PORT' : '--port', 0),
    ...(dynamoDbPort === undefined ? {} : { dynamoDbPort: portOf(dynamoDbPort, '--dynamodb-port', 1) }),
    inMemory: values['in-memory'] === true,
    ...(values.web === undefined ? {} : { web: webUrlOf(values.web) }),
  };
};

/** The web app's URL of `--web`: http(s) with a host, or a `StartUsageError`. Pure. */
const webUrlOf = (text: string): URL => {
  let url: URL | undefined;
  try {
    url = new URL(text);
  } catch {
    url = undefined;
  }
  if (
    !url ||
    !/^https?:$/.test(url.protocol) ||
    !url.hostname ||
    (url.pathname !== '/' && url.pathname !== '')
  )
    throw new StartUsageError(
      `--web must be the web app's origin, like http://127.0.0.1:3210, not "${text}"`,
    );
  if (url.protocol === 'https:')
    throw new StartUsageError('--web takes an http:// origin (the web app running beside it)');
  return url;
};
