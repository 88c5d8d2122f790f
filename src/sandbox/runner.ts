import { spawn } from 'node:child_process';
import { lstatSync } from 'node:fs';

/** Limits of one step (a compile or one run). */
export interface StepLimits {
  /** CPU time, all processes of the step together. */
  cpuMs: number;
  wallMs: number;
  addressSpaceMb: number;
  processes: number;
  fileSizeMb: number;
  openFiles: number;
  stdoutBytes: number;
  stderrBytes: number;
}

export interface StepFile {
  /** Path below the workdir. */
  name: string;
  content: string | Buffer;
  executable?: boolean;
}

export interface StepRequest {
  argv: string[];
  files: StepFile[];
  stdin?: string | Buffer;
  limits: StepLimits;
  /** Read-only host paths shown inside, [host, inside]: toolchains only. */
  binds?: Array<[string, string]>;
  env?: Record<string, string>;
  /** A file the step writes to fd 4 (a compile's output) is collected, up to this many bytes. */
  artifactBytes?: number;
}

export interface StepResult {
  exitCode: number | null;
  signal: number;
  cpuMs: number;
  wallMs: number;
  memoryKb: number;
  /** The wall-clock limit ended it. */
  timedOut: boolean;
  /** It used more CPU time than allowed (killed by RLIMIT_CPU, or over the total). */
  cpuExceeded: boolean;
  stdout: Buffer;
  stderr: Buffer;
  /** Output went past its cap: the step was killed at once. */
  outputExceeded: boolean;
  artifact: Buffer | null;
  /** The launcher failed before the program ran (an infrastructure fault, not the candidate's). */
  launchError: string | null;
}

export interface SlotIdentity {
  uid: number;
  gid: number;
}

/** The launcher binary: its path on the host (the outer end) and its bytes (copied in as the inner end). */
export interface Launcher {
  path: string;
  image: Buffer;
}

const INIT = '/opt/prep-init';
const SIGXCPU = 24;
const SIGKILL = 9;
const WORKDIR = '/work';

/** System directories shown read-only; on a merged-/usr system /bin, /lib… are symlinks into /usr. */
function systemMounts(): string[] {
  const args = ['--ro-bind', '/usr', '/usr'];
  for (const dir of ['/bin', '/sbin', '/lib', '/lib64', '/lib32']) {
    let stat;
    try {
      stat = lstatSync(dir);
    } catch {
      continue;
    }
    if (stat.isSymbolicLink()) args.push('--symlink', `usr${dir}`, dir);
    else args.push('--ro-bind', dir, dir);
  }
  // Only what the dynamic loader and the toolchains read from /etc; never passwd, shadow or the service's config.
  for (const file of ['/etc/ld.so.cache', '/etc/ld.so.conf', '/etc/ld.so.conf.d', '/etc/alternatives', '/etc/java-17-openjdk', '/etc/java-21-openjdk']) {
    args.push('--ro-bind-try', file, file);
  }
  return args;
}

let mounts: string[] | null = null;

/**
 * Runs one step in a fresh bubblewrap sandbox: new user, pid, network, ipc, uts and cgroup namespaces (the
 * network has only its own loopback), read-only system directories, a fresh tmpfs as the workdir, files
 * passed in through pipes (the host never opens a path inside the sandbox), an empty environment, and the
 * launcher's rlimits and unprivileged uid. The program is pid 1 of its namespace, so when it exits
 * anything it left behind is killed with it.
 */
export function runStep(launcher: Launcher, slot: SlotIdentity | null, request: StepRequest): Promise<StepResult> {
  mounts ??= systemMounts();
  const { limits } = request;
  const fileFdBase = 5;
  const files: StepFile[] = [{ name: INIT, content: launcher.image, executable: true }, ...request.files];
  const args = [
    '--unshare-all', '--die-with-parent', '--new-session', '--as-pid-1',
    ...mounts,
    ...(request.binds ?? []).flatMap(([host, inside]) => ['--ro-bind', host, inside]),
    '--proc', '/proc', '--dev', '/dev',
    '--size', String(64 * 1_048_576), '--tmpfs', '/tmp',
    '--size', String(limits.fileSizeMb * 4 * 1_048_576), '--tmpfs', WORKDIR,
    '--dir', '/opt',
    ...files.flatMap((f, i) => [
      ...(f.executable ? ['--perms', '0755'] : []), '--file', String(fileFdBase + i), f.name === INIT ? INIT : `${WORKDIR}/${f.name}`,
    ]),
    '--remount-ro', '/',
    '--chdir', WORKDIR, '--clearenv',
    '--setenv', 'PATH', '/usr/local/bin:/usr/bin:/bin', '--setenv', 'HOME', WORKDIR, '--setenv', 'TMPDIR', '/tmp',
    '--setenv', 'LANG', 'C.UTF-8',
    ...Object.entries(request.env ?? {}).flatMap(([k, v]) => ['--setenv', k, v]),
    '--hostname', 'sandbox', '--uid', '1000', '--gid', '1000',
    '--', INIT, 'inner', '3', String(limits.cpuMs), String(limits.addressSpaceMb * 1_048_576), String(limits.processes),
    String(limits.fileSizeMb * 1_048_576), String(limits.openFiles), '--', ...request.argv,
  ];
  const launchArgs = ['outer', '3', String(slot?.uid ?? -1), String(slot?.gid ?? -1), String(limits.wallMs), '--', '/usr/bin/bwrap', ...args];

  return new Promise((resolve) => {
    const started = Date.now();
    const child = spawn(launcher.path, launchArgs, {
      stdio: ['pipe', 'pipe', 'pipe', 'pipe', request.artifactBytes ? 'pipe' : 'ignore', ...files.map(() => 'pipe' as const)],
      env: { PATH: '/usr/bin:/bin' },
    });
    const stdout = new Capped(limits.stdoutBytes);
    const stderr = new Capped(limits.stderrBytes);
    const artifact = new Capped(request.artifactBytes ?? 0);
    let stats = '';
    let outputExceeded = false;
    let spawnError: string | null = null;
    const kill = () => child.kill('SIGKILL');
    // A backstop: the launcher enforces the wall clock itself.
    const backstop = setTimeout(kill, limits.wallMs + 5_000);

    const overflow = () => {
      if (!outputExceeded) {
        outputExceeded = true;
        kill();
      }
    };
    child.stdout!.on('data', (chunk: Buffer) => stdout.push(chunk) || overflow());
    child.stderr!.on('data', (chunk: Buffer) => stderr.push(chunk) || overflow());
    (child.stdio[3] as NodeJS.ReadableStream).on('data', (chunk: Buffer) => (stats += chunk.toString()));
    (child.stdio[4] as NodeJS.ReadableStream | null)?.on('data', (chunk: Buffer) => artifact.push(chunk) || overflow());
    child.on('error', (error) => (spawnError = error.message));

    for (const [i, file] of files.entries()) {
      const pipe = child.stdio[fileFdBase + i] as NodeJS.WritableStream;
      pipe.on('error', () => {});
      pipe.end(file.content);
    }
    child.stdin!.on('error', () => {}); // the program may exit without reading its input
    child.stdin!.end(request.stdin ?? '');

    child.on('close', () => {
      clearTimeout(backstop);
      const lines = stats.trim().split('\n').flatMap((line) => {
        try {
          return [JSON.parse(line) as Record<string, number>];
        } catch {
          return [];
        }
      });
      const outer = lines.find((l) => l.outer === 1) ?? null;
      const inner = lines.find((l) => l.outer === undefined) ?? null;
      const timedOut = outer?.timed_out === 1;
      const cpuMs = inner?.cpu_ms ?? 0;
      const signal = inner?.signal ?? SIGKILL;
      let launchError: string | null = null;
      if (spawnError) launchError = spawnError;
      else if (!outer && !outputExceeded) launchError = `launcher ended without a report: ${stderr.text().slice(0, 500)}`;
      else if (!inner && !timedOut && !outputExceeded) launchError = `the sandbox did not start: ${stderr.text().slice(0, 500)}`;
      resolve({
        exitCode: inner && inner.status! >= 0 ? inner.status! : null,
        signal: inner ? signal : SIGKILL,
        cpuMs,
        wallMs: outer?.wall_ms ?? Date.now() - started,
        memoryKb: inner?.rss_kb ?? 0,
        timedOut,
        cpuExceeded: inner !== null && (signal === SIGXCPU || cpuMs > limits.cpuMs || (signal === SIGKILL && cpuMs >= limits.cpuMs - 50)),
        stdout: stdout.bytes(),
        stderr: stderr.bytes(),
        outputExceeded,
        artifact: request.artifactBytes ? artifact.bytes() : null,
        launchError,
      });
    });
  });
}

/** Collects a stream up to a cap; push answers false once the cap is passed. */
class Capped {
  private chunks: Buffer[] = [];
  private size = 0;
  constructor(private readonly cap: number) {}
  push(chunk: Buffer): boolean {
    if (this.size + chunk.length > this.cap) {
      this.chunks.push(chunk.subarray(0, Math.max(0, this.cap - this.size)));
      this.size = this.cap;
      return false;
    }
    this.chunks.push(chunk);
    this.size += chunk.length;
    return true;
  }
  bytes(): Buffer {
    return Buffer.concat(this.chunks);
  }
  text(): string {
    return this.bytes().toString('utf8');
  }
}
