import { type ChildProcess, spawn } from 'node:child_process';

/** Programs started and not yet seen to exit: `stopPrograms` ends them, whatever happened to the test. */
const running = new Set<ChildProcess>();

/**
 * Runs `npm start`'s program as a person would, on its own data folder and a free port, collecting
 * its output; `ready` resolves with the API URL and token it prints. It leads its own process
 * group, as a program started in a terminal does (`ctrlC` signals the group as the terminal would).
 */
export const startProgram = (dataDir: string, extra: string[] = []) => {
  // The test run's own DynamoDB settings must not leak into the program under test.
  // (and its silence: the program logs as it does for a person)
  const { AWS_ENDPOINT_URL_DYNAMODB, TABLE_NAME, SIGNING_KEYS_FILE, POWERTOOLS_LOG_LEVEL, ...env } =
    process.env;
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', 'infra/local/start.ts', '--port', '0', ...extra],
    { env: { ...env, LOCAL_DATA_DIR: dataDir }, stdio: ['ignore', 'pipe', 'pipe'], detached: true },
  );
  running.add(child);
  child.once('exit', () => running.delete(child));
  let out = '';
  child.stdout?.on('data', (d) => {
    out += d;
  });
  child.stderr?.on('data', (d) => {
    out += d;
  });
  const ready = new Promise<{ api: string; token: string }>((resolve, reject) => {
    const timer = setInterval(() => {
      const api = /^API {2}(\S+)$/m.exec(out)?.[1];
      const token = /^Token {2}(\S+)$/m.exec(out)?.[1];
      if (api && token) {
        clearInterval(timer);
        resolve({ api, token });
      }
      if (child.exitCode !== null) {
        clearInterval(timer);
        reject(new Error(`start exited early:\n${out}`));
      }
    }, 100);
  });
  return { child, ready, output: () => out };
};

/** Stops the program with SIGTERM and answers its exit code (at once if it has exited already). */
export const stopProgram = (child: ChildProcess) =>
  new Promise<number | null>((resolve) => {
    if (child.exitCode !== null) resolve(child.exitCode);
    child.once('exit', (code) => resolve(code));
    child.kill('SIGTERM');
  });

/** A Ctrl-C in the program's terminal: SIGINT to its whole process group. Answers its exit code. */
export const ctrlC = (child: ChildProcess) =>
  new Promise<number | null>((resolve) => {
    if (child.exitCode !== null) resolve(child.exitCode);
    child.once('exit', (code) => resolve(code));
    process.kill(-(child.pid as number), 'SIGINT');
  });

/** Kills every program a test started that still runs (its DynamoDB Local ends with it). For `afterEach`. */
export const stopPrograms = async () => {
  await Promise.all(
    [...running].map(
      (child) =>
        new Promise<void>((resolve) => {
          if (child.exitCode !== null || child.signalCode !== null) return resolve();
          child.once('exit', () => resolve());
          child.kill('SIGKILL');
        }),
    ),
  );
};
