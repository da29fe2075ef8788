import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { connect, createServer } from 'node:net';
import { dirname, join, resolve } from 'node:path';
import { settings } from '../config.js';
import { copyWhole } from './s3-copies.js';

/**
 * The embedded emulators of the local runtime: AWS's DynamoDB Local (the jar shipped in the npm
 * package amplify-dynamodb-simulator, run with the machine's Java), s3rver and local-aws-sqs.
 */
export interface Emulator {
  endpoint: string;
  stop: () => Promise<void>;
}

export async function freePort(): Promise<number> {
  return new Promise((res, rej) => {
    const server = createServer();
    server.unref();
    server.on('error', rej);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => res(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

/**
 * Whether the API could listen on its port, asked the way it listens (every interface), so that a
 * start on a taken port stops before it creates data or starts an emulator.
 */
export async function portProblem(port: number): Promise<string | undefined> {
  return new Promise((res) => {
    const probe = createServer();
    probe.once('error', (error: NodeJS.ErrnoException) =>
      res(
        error.code === 'EADDRINUSE'
          ? `Port ${port} is in use (another npm start?): stop what holds it, or start on another port, e.g. PORT=${port + 1} npm start.`
          : `Port ${port} cannot be used: ${error.message}.`,
      ),
    );
    probe.listen(port, () => probe.close(() => res(undefined)));
  });
}

function javaCommand(): string {
  const home = settings().JAVA_HOME;
  return home ? join(home, 'bin', 'java') : 'java';
}

const javaChecked = new Map<string, string | undefined>();

/** Java 17+ (JAVA_HOME, else the PATH), or a one-line explanation of what is missing. */
export function javaProblem(): string | undefined {
  // npm start checks before it starts DynamoDB Local, which checks again: one JVM is enough to ask.
  const command = javaCommand();
  if (!javaChecked.has(command)) javaChecked.set(command, askJava(command));
  return javaChecked.get(command);
}

function askJava(command: string): string | undefined {
  const out = spawnSync(command, ['-version'], { encoding: 'utf8' });
  if (out.error || out.status !== 0) {
    return `Java 17 or newer is required to run DynamoDB Local, and ${command} could not be run (set JAVA_HOME, or on Debian: apt-get install openjdk-17-jre-headless).`;
  }
  const m = /version "(\d+)/.exec(out.stderr + out.stdout);
  const major = m ? Number(m[1]) : 0;
  return major >= 17 ? undefined : `Java 17 or newer is required to run DynamoDB Local; found Java ${major || 'of unknown version'}.`;
}

/**
 * DynamoDB Local's JVM as a test run and a local session use it, not as a server at peak: the
 * client compiler only (C2's compilations cost more CPU than its faster code saved) and the serial
 * collector (no GC threads competing for 2 cores). Measured 2026-11-27 on 2 cores with Java 17: a
 * start took 1.7 to 2.2 s of CPU instead of 3.5 to 5.2 s; five API files' JVM 28 to 30 s instead
 * of 46 to 60 s (the whole run 89 to 94 s instead of 101 to 130 s); and after 8,400 requests each
 * further 600 still cost 0.5 to 0.7 s instead of 0.8 to 1.0 s, at no higher latency. Under the
 * tests' sustained load too (six API files, four side by side, about 9,000 commands): the shared
 * JVM took 21 to 26 s on the client compiler and 39 to 41 s with C2, whose compiler threads alone
 * took 17 to 18 s while its request and SQLite threads saved nothing; GC took 0.3 s. The bench asks
 * for the JVM's defaults (`peak`): its figures are compared from one change to the next, and in a
 * pair of its runs a provider selection's 959 updates took 3.8 s on the client compiler, not 2.7 s.
 */
const LEAN_JVM = ['-XX:TieredStopAtLevel=1', '-XX:+UseSerialGC'];

/** sqlite4java's native library for this platform, as DynamoDBLocal_lib names it. */
const SQLITE_LIBRARIES: Record<string, string> = {
  'linux-x64': 'libsqlite4java-linux-amd64.so',
  'linux-arm64': 'libsqlite4java-linux-aarch64.so',
  'linux-ia32': 'libsqlite4java-linux-i386.so',
  'darwin-arm64': 'libsqlite4java-osx-aarch64.dylib',
  'darwin-x64': 'libsqlite4java-osx-x86_64.dylib',
  'win32-x64': 'sqlite4java-win32-x64.dll',
  'win32-ia32': 'sqlite4java-win32-x86.dll',
};

/**
 * Points DynamoDB Local at the SQLite library beside its jar. Unless org.sqlite.lib.path names one,
 * it copies the library out of its jar into the temp folder at every start (900 KB, under a new
 * name each time) and removes it only in a shutdown hook, which a JVM stopped by a signal under
 * -Xrs never runs: every start of the tests or of `npm start` left one behind.
 */
function sqliteLibraryOptions(libDir: string): string[] {
  const name = SQLITE_LIBRARIES[`${process.platform}-${process.arch}`];
  return name && existsSync(join(libDir, name)) ? [`-Dorg.sqlite.lib.path=${libDir}`, `-Dorg.sqlite.lib.name=${name}`] : [];
}

const children = new Set<ChildProcess>();
let exitHookInstalled = false;

/** A JVM child outlives a parent that exits abruptly unless it is killed explicitly. */
function killChildrenOnExit(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.on('exit', () => {
    for (const child of children) child.kill('SIGKILL');
  });
}

/**
 * Starts DynamoDB Local. With `databasePerCredential`, each access key works in a database of its
 * own (DYNAMODB_LOCAL_DATABASE); otherwise every key shares one, as the local runtime's data expects.
 */
export async function startDynamoDbLocal(options: { dataDir?: string; port?: number; databasePerCredential?: boolean; peak?: boolean }): Promise<Emulator> {
  const problem = javaProblem();
  if (problem) throw new Error(problem);
  const require = createRequire(import.meta.url);
  const emulatorDir = join(dirname(require.resolve('amplify-dynamodb-simulator/package.json')), 'emulator');
  const libDir = join(emulatorDir, 'DynamoDBLocal_lib');
  const port = options.port ?? (await freePort());
  const storage = options.dataDir ? ['-dbPath', resolve(options.dataDir)] : ['-inMemory'];
  if (options.dataDir) mkdirSync(options.dataDir, { recursive: true });
  const child = spawn(
    javaCommand(),
    [
      '-Xrs',
      ...(options.peak ? [] : LEAN_JVM),
      `-Djava.library.path=${libDir}`,
      ...sqliteLibraryOptions(libDir),
      '-jar',
      join(emulatorDir, 'DynamoDBLocal.jar'),
      '-port',
      String(port),
      '-disableTelemetry',
      ...(options.databasePerCredential ? [] : ['-sharedDb']),
      ...storage,
    ],
    // DynamoDB Local writes a metadata file into its working directory.
    { cwd: options.dataDir ? resolve(options.dataDir) : emulatorDir, stdio: ['ignore', 'ignore', 'pipe'] },
  );
  children.add(child);
  killChildrenOnExit();
  let stderr = '';
  child.stderr?.on('data', (d) => (stderr = (stderr + d).slice(-2000)));
  // Recorded from the start: a JVM in the terminal's process group dies of Ctrl-C by itself, with
  // a signalCode and no exitCode, before anyone asks it to stop.
  const exited = new Promise<void>((res) => child.once('exit', () => res()));
  const endpoint = `http://127.0.0.1:${port}`;
  await waitForDynamo(endpoint, port, child, () => stderr);
  return {
    endpoint,
    stop: async () => {
      child.kill('SIGTERM');
      const force = setTimeout(() => child.kill('SIGKILL'), 3000);
      force.unref();
      await exited;
      clearTimeout(force);
      children.delete(child);
    },
  };
}

const DYNAMODB_START_SECONDS = 90;

async function waitForDynamo(endpoint: string, port: number, child: ChildProcess, stderr: () => string): Promise<void> {
  // Loaded here, not with this module: npm start checks Java and its port with this module before it loads the AWS SDK.
  const { endpointAnswers } = await import('../store/schema.js');
  // Its start takes a few seconds of CPU: tens of seconds on a laptop busy with a build or a test run.
  const deadline = Date.now() + DYNAMODB_START_SECONDS * 1000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(`DynamoDB Local exited with ${child.signalCode ?? `code ${child.exitCode}`}: ${stderr().trim().split('\n').pop() ?? ''}`);
    }
    // A connection attempt costs next to nothing; a DynamoDB client and its request cost milliseconds
    // of CPU each, over a JVM start of several seconds (tens on a busy machine): asked once the port is open.
    if ((await portAnswers(port)) && (await endpointAnswers(endpoint))) return;
    await new Promise((r) => setTimeout(r, 150));
  }
  throw new Error(`DynamoDB Local did not answer within ${DYNAMODB_START_SECONDS} seconds`);
}

/** Whether something on this machine accepts connections on the port. */
export function portAnswers(port: number): Promise<boolean> {
  return new Promise((res) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      res(true);
    });
    socket.once('error', () => res(false));
  });
}

export async function startS3(options: { dataDir: string; port?: number }): Promise<Emulator> {
  const { default: S3rver } = await import('s3rver');
  const port = options.port ?? (await freePort());
  mkdirSync(options.dataDir, { recursive: true });
  const server = new S3rver({ port, address: '127.0.0.1', directory: resolve(options.dataDir), silent: true });
  copyWhole(server.store);
  await server.run();
  return {
    endpoint: `http://127.0.0.1:${port}`,
    stop: () => new Promise<void>((res) => server.close(() => res())),
  };
}

export async function startSqs(options: { port?: number }): Promise<Emulator> {
  const { createSqsServer } = await import('local-aws-sqs');
  const port = options.port ?? (await freePort());
  const server = await createSqsServer({ port, hostname: '127.0.0.1', emulateQueueCreationLifecycle: false });
  return {
    endpoint: `http://127.0.0.1:${port}`,
    stop: () => new Promise<void>((res) => server.close(() => res())),
  };
}
