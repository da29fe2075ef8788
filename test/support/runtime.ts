import { spawn, spawnSync, type ChildProcess } from 'node:child_process';

export interface Runtime {
  child: ChildProcess;
  output: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null; at: number }>;
}

/**
 * `npm start` as a terminal runs it: detached, so that it leads its own process group and a
 * signal can reach the whole group (Ctrl-C) or the npm process alone (a supervisor).
 */
export async function startRuntime(env: { PORT: number; DATA_DIR: string }): Promise<Runtime> {
  const child = spawn('npm', ['start'], {
    env: { ...process.env, PORT: String(env.PORT), DATA_DIR: env.DATA_DIR },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let output = '';
  child.stdout!.on('data', (d) => (output += d));
  child.stderr!.on('data', (d) => (output += d));
  const exited = new Promise<Awaited<Runtime['exited']>>((res) => child.once('exit', (code, signal) => res({ code, signal, at: Date.now() })));
  const deadline = Date.now() + 90_000;
  // The last line of the start-up banner: everything before it has been printed too.
  while (!output.includes('Issue more tokens with') && Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`npm start exited: ${output}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  if (!output.includes('Issue more tokens with')) throw new Error(`npm start did not come up: ${output}`);
  return { child, output: () => output, exited };
}

/** The live processes of a process group, by command name. */
export function groupMembers(pgid: number): { pid: number; command: string }[] {
  const ps = spawnSync('ps', ['-eo', 'pid=,pgid=,stat=,comm='], { encoding: 'utf8' });
  return ps.stdout
    .split('\n')
    .map((line) => line.trim().split(/\s+/))
    .filter(([pid, group, stat]) => pid && Number(group) === pgid && !stat!.startsWith('Z'))
    .map(([pid, , , command]) => ({ pid: Number(pid), command: command ?? '' }));
}

/** Leaves nothing behind when a test fails half-way. */
export function killGroup(pgid: number): void {
  try {
    process.kill(-pgid, 'SIGKILL');
  } catch {
    // The group is already gone.
  }
}
