import { type ChildProcess, spawn } from 'node:child_process';

/**
 * Runs `npm start`'s program as a person would, on its own data folder and a free port, collecting
 * its output; `ready` resolves with the API URL and token it prints.
 */
export const startProgram = (dataDir: string, extra: string[] = []) => {
  // The test run's own DynamoDB settings must not leak into the program under test.
  const { AWS_ENDPOINT_URL_DYNAMODB, TABLE_NAME, SIGNING_KEYS_FILE, ...env } = process.env;
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', 'infra/local/start.ts', '--port', '0', ...extra],
    { env: { ...env, LOCAL_DATA_DIR: dataDir }, stdio: ['ignore', 'pipe', 'pipe'] },
  );
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
