import { spawn, type ChildProcess } from 'node:child_process';
import { lstatSync, mkdirSync, realpathSync } from 'node:fs';
import path from 'node:path';

/** Limits of one step (a compile or one run). */
export interface StepLimits {
  /** CPU time, all processes of the step together. */
  cpuMs: number;
  wallMs: number;
  /** Per process (a runtime reserves far more than it uses). */
  addressSpaceMb: number;
  /** Resident memory, all processes of the step together (none: only the address space bounds it). */
  memoryMb?: number;
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
/** The workdir's size (each file is also capped by the step's file-size limit). */
const WORKDIR_BYTES = 256 * 1_048_576;
/** /tmp's and /dev/shm's size. */
const SCRATCH_BYTES = 64 * 1_048_576;
/** Output a sandbox may make before its job arrives (bubblewrap's own errors). */
const BEFORE_JOB_BYTES = 64 * 1024;
const SIGXCPU = 24;
const SIGKILL = 9;
const WORKDIR = '/work';
/** The sandbox's writable filesystems: the inner launcher counts the files on them (tmpfs sizes bound bytes, not files). */
const WRITABLE = [WORKDIR, '/tmp', '/dev/shm'];

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

/** A path with its symlinks resolved as far as it exists (the rest, not made yet, appended as given). */
function realPath(file: string): string {
  const rest: string[] = [];
  for (let dir = path.resolve(file); ; dir = path.dirname(dir)) {
    try {
      return path.join(realpathSync(dir), ...rest.reverse());
    } catch {
      if (dir === path.dirname(dir)) return path.resolve(file);
      rest.push(path.basename(dir));
    }
  }
}

/** The host directory (or file) through which `file` would be shown inside every sandbox; null: it is not. */
export function shownInside(file: string): string | null {
  mounts ??= systemMounts();
  const real = realPath(file);
  for (let i = 0; i < mounts.length; i++) {
    if (mounts[i] !== '--ro-bind' && mounts[i] !== '--ro-bind-try') continue;
    const source = mounts[i + 1]!;
    const shown = realPath(source);
    if (real === shown || real.startsWith(shown.endsWith('/') ? shown : `${shown}/`)) return source;
    i += 2;
  }
  return null;
}

/**
 * Mounts that hide, inside every sandbox, the directories of `dirs` a system mount would show (a service installed
 * under /usr, its data there): an empty, read-only tmpfs over each. A directory not made yet is made now, as the
 * service would make it later: made after the sandboxes' mounts, it would be shown through /usr. Throws when it
 * cannot be made.
 */
export function hidingMounts(dirs: string[]): string[] {
  const args: string[] = [];
  for (const dir of new Set(dirs.map(realPath))) {
    if (!shownInside(dir)) continue;
    // Owner-only is for the directory itself: parents made along the way keep the usual mode, since a sandbox must
    // pass through them to reach the mount point (made 0700 too, every run failed and execution was unavailable).
    mkdirSync(path.dirname(dir), { recursive: true });
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    args.push('--size', '4096', '--tmpfs', dir, '--remount-ro', dir);
  }
  return args;
}

/**
 * A sandbox made ahead of its step: bubblewrap has built the namespaces and mounts, and the inner launcher
 * waits on stdin for the job. Making it is most of a step's cost, so a slot keeps the next one ready.
 * Used once.
 */
export interface WarmSandbox {
  child: ChildProcess;
  stdout: Capped;
  stderr: Capped;
  artifact: Capped;
  stats(): string;
  closed: Promise<void>;
  spawnError(): string | null;
}

/**
 * Starts a sandbox: new user, pid, network, ipc, uts and cgroup namespaces (the network has only its own
 * loopback), read-only system directories, a fresh tmpfs as the workdir, an empty environment, the slot's
 * unprivileged uid. The program will be pid 2 of its namespace, under pid 1 (the inner launcher): when
 * either ends, anything left behind is killed with the namespace.
 */
export function warmSandbox(launcher: Launcher, slot: SlotIdentity | null, hidden: readonly string[] = []): WarmSandbox {
  mounts ??= systemMounts();
  const args = [
    // No user namespace of the program's own: root in one, it could mount a tmpfs of no size no limit here sees.
    '--unshare-all', '--unshare-user', '--disable-userns', '--die-with-parent', '--new-session', '--as-pid-1',
    ...mounts, ...hidden,
    '--proc', '/proc', '--dev', '/dev',
    // bubblewrap's /dev is a tmpfs with no size (half the host's RAM), owned by the sandbox's user: /dev/shm gets a
    // capped one and /dev itself is made read-only. Its devpts is hidden under an empty read-only tmpfs: the host has
    // one pool of pseudo-terminals for every devpts but its own (kernel.pty.max), and a run could take them all.
    '--size', String(SCRATCH_BYTES), '--tmpfs', '/dev/shm',
    '--size', '4096', '--tmpfs', '/dev/pts', '--remount-ro', '/dev/pts', '--remount-ro', '/dev',
    '--size', String(SCRATCH_BYTES), '--tmpfs', '/tmp',
    '--size', String(WORKDIR_BYTES), '--tmpfs', WORKDIR,
    '--dir', '/opt', '--perms', '0555', '--file', '5', INIT,
    '--remount-ro', '/',
    '--chdir', WORKDIR, '--clearenv',
    '--setenv', 'PATH', '/usr/local/bin:/usr/bin:/bin', '--setenv', 'HOME', WORKDIR, '--setenv', 'TMPDIR', '/tmp',
    '--setenv', 'LANG', 'C.UTF-8',
    '--hostname', 'sandbox', '--uid', '1000', '--gid', '1000',
    '--', INIT, 'inner', '3', ...WRITABLE,
  ];
  const child = spawn(launcher.path, ['outer', '3', String(slot?.uid ?? -1), String(slot?.gid ?? -1), '--', '/usr/bin/bwrap', ...args], {
    stdio: ['pipe', 'pipe', 'pipe', 'pipe', 'pipe', 'pipe'],
    env: { PATH: '/usr/bin:/bin' },
  });
  const warm: WarmSandbox = {
    child,
    stdout: new Capped(BEFORE_JOB_BYTES),
    stderr: new Capped(BEFORE_JOB_BYTES),
    artifact: new Capped(0),
    stats: () => stats,
    closed: new Promise((resolve) => child.on('close', () => resolve())),
    spawnError: () => spawnError,
  };
  let stats = '';
  let spawnError: string | null = null;
  child.on('error', (error) => (spawnError = error.message));
  child.stdout!.on('data', (chunk: Buffer) => warm.stdout.push(chunk));
  child.stderr!.on('data', (chunk: Buffer) => warm.stderr.push(chunk));
  (child.stdio[3] as NodeJS.ReadableStream).on('data', (chunk: Buffer) => (stats += chunk.toString()));
  (child.stdio[4] as NodeJS.ReadableStream).on('data', (chunk: Buffer) => warm.artifact.push(chunk));
  const image = (child.stdio as unknown as NodeJS.WritableStream[])[5]!;
  image.on('error', () => {});
  image.end(launcher.image);
  child.stdin!.on('error', () => {}); // the program may exit without reading its input
  setHeld(child, false); // a sandbox waiting for work does not keep the process alive
  return warm;
}

/** Whether the child and its pipes keep the Node process running. */
function setHeld(child: ChildProcess, held: boolean): void {
  if (held) child.ref();
  else child.unref();
  for (const stream of child.stdio as unknown as Array<{ ref?: () => void; unref?: () => void } | null>) {
    if (held) stream?.ref?.();
    else stream?.unref?.();
  }
}

/** The job the inner launcher reads (launcher.c, read_job), followed by the program's stdin. */
function job(request: StepRequest): Buffer {
  const { limits } = request;
  const fields = (...xs: Array<string | number>) => Buffer.from(xs.map((x) => `${x}\0`).join(''));
  const parts: Buffer[] = [fields('PREP2', limits.cpuMs, limits.addressSpaceMb * 1_048_576, (limits.memoryMb ?? 0) * 1_048_576, limits.processes,
    limits.fileSizeMb * 1_048_576, limits.openFiles, request.files.length)];
  for (const f of request.files) {
    const content = typeof f.content === 'string' ? Buffer.from(f.content) : f.content;
    parts.push(fields(f.name, f.executable ? '755' : '644', content.length), content);
  }
  parts.push(fields(request.argv.length, ...request.argv));
  return Buffer.concat(parts);
}

/** Runs one step in a warm sandbox (see warmSandbox); the sandbox is spent afterwards. */
export async function runIn(warm: WarmSandbox, request: StepRequest): Promise<StepResult> {
  const { limits } = request;
  const { child } = warm;
  const started = Date.now();
  setHeld(child, true);
  let outputExceeded = false;
  const overflow = () => {
    if (!outputExceeded) {
      outputExceeded = true;
      child.kill('SIGKILL');
    }
  };
  warm.stdout.limit(limits.stdoutBytes, overflow);
  warm.stderr.limit(limits.stderrBytes, overflow);
  warm.artifact.limit(request.artifactBytes ?? 0, overflow);
  // The launcher kills the sandbox when told the time is up; the backstop kills the launcher itself.
  const wall = setTimeout(() => child.kill('SIGUSR1'), limits.wallMs);
  const backstop = setTimeout(() => child.kill('SIGKILL'), limits.wallMs + 5_000);
  child.stdin!.end(Buffer.concat([job(request), typeof request.stdin === 'string' ? Buffer.from(request.stdin) : request.stdin ?? Buffer.alloc(0)]));
  await warm.closed;
  clearTimeout(wall);
  clearTimeout(backstop);

  const lines = warm.stats().trim().split('\n').flatMap((line) => {
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
  const signal = inner?.signal ?? SIGKILL; // no report from inside: it was killed
  // Too many files in the sandbox's filesystems: output past its cap, as for stdout.
  if (inner?.files_exceeded === 1) outputExceeded = true;
  let launchError: string | null = null;
  if (warm.spawnError()) launchError = warm.spawnError();
  else if (!outer && !outputExceeded) launchError = `launcher ended without a report: ${warm.stderr.text().slice(0, 500)}`;
  else if (!inner && !timedOut && !outputExceeded) launchError = `the sandbox did not start: ${warm.stderr.text().slice(0, 500)}`;
  return {
    exitCode: inner && inner.status! >= 0 ? inner.status! : null,
    signal,
    cpuMs,
    wallMs: Date.now() - started,
    memoryKb: inner?.rss_kb ?? 0,
    timedOut,
    cpuExceeded: inner !== null && (signal === SIGXCPU || cpuMs > limits.cpuMs || (signal === SIGKILL && cpuMs >= limits.cpuMs - 50)),
    stdout: warm.stdout.bytes(),
    stderr: warm.stderr.bytes(),
    outputExceeded,
    artifact: request.artifactBytes ? warm.artifact.bytes() : null,
    launchError,
  };
}

/** One step in a sandbox made for it (no warm one at hand). */
export function runStep(launcher: Launcher, slot: SlotIdentity | null, request: StepRequest, hidden: readonly string[] = []): Promise<StepResult> {
  return runIn(warmSandbox(launcher, slot, hidden), request);
}

/** Collects a stream up to a cap (set when the step starts); past it, `onOverflow` runs once. */
class Capped {
  private chunks: Buffer[] = [];
  private size = 0;
  private overflowed = false;
  private onOverflow: () => void = () => {};
  constructor(private cap: number) {}
  limit(cap: number, onOverflow: () => void): void {
    this.cap = cap;
    this.onOverflow = onOverflow;
    if (this.size > cap) this.overflow();
  }
  push(chunk: Buffer): void {
    if (this.overflowed) return;
    if (this.size + chunk.length > this.cap) {
      this.chunks.push(chunk.subarray(0, Math.max(0, this.cap - this.size)));
      this.size = this.cap;
      this.overflow();
      return;
    }
    this.chunks.push(chunk);
    this.size += chunk.length;
  }
  private overflow(): void {
    this.overflowed = true;
    this.onOverflow();
  }
  bytes(): Buffer {
    return Buffer.concat(this.chunks);
  }
  text(): string {
    return this.bytes().toString('utf8');
  }
}
