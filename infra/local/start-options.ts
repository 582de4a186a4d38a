import { parseArgs } from 'node:util';

/** What `npm start` was asked for. */
export interface StartOptions {
  /** The API's port; 0 takes any free one (the tests do). */
  port: number;
  /** DynamoDB Local's port; undefined takes any free one. */
  dynamoDbPort?: number;
  inMemory: boolean;
}

export const START_USAGE = 'usage: npm start -- [--port <0-65535>] [--dynamodb-port <1-65535>] [--in-memory]';

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
 * (a fixed port, so a container can be given DynamoDB Local's address), `--in-memory`. Unknown
 * options, missing values and bad ports are a `StartUsageError`. Pure.
 */
export const parseStartOptions = (args: readonly string[], env: NodeJS.ProcessEnv = {}): StartOptions => {
  let values: { port?: string; 'dynamodb-port'?: string; 'in-memory'?: boolean };
  try {
    ({ values } = parseArgs({
      args: [...args],
      options: {
        port: { type: 'string' },
        'dynamodb-port': { type: 'string' },
        'in-memory': { type: 'boolean', default: false },
      },
      allowPositionals: false,
      strict: true,
    }));
  } catch (error) {
    throw new StartUsageError((error as Error).message);
  }
  const apiPort = values.port ?? (env.PORT || undefined);
  const dynamoDbPort = values['dynamodb-port'];
  return {
    port: apiPort === undefined ? 3000 : portOf(apiPort, values.port === undefined ? 'PORT' : '--port', 0),
    ...(dynamoDbPort === undefined ? {} : { dynamoDbPort: portOf(dynamoDbPort, '--dynamodb-port', 1) }),
    inMemory: values['in-memory'] === true,
  };
};
