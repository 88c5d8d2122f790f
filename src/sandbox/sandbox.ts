import { ConfigError, type Config } from '../config.js';
import { head } from '../platform/text.js';
import { outputsMatch } from './compare.js';
import { detectLanguages, type Language } from './languages.js';
import { launcherBinary } from './launcher.js';
import { fileURLToPath } from 'node:url';
import { hidingMounts, runIn, runStep, warmSandbox, type Launcher, type SlotIdentity, type StepFile, type StepLimits, type StepRequest, type StepResult, type WarmSandbox } from './runner.js';
import { SlotPool, type Priority } from './slots.js';
import { executionVerdict, type RunVerdict } from './verdicts.js';

/** Code execution is not possible on this machine (no bubblewrap, not started as root…). */
export class SandboxUnavailableError extends Error {}
/** Every slot is busy and the caller would wait too long. */
export class SandboxBusyError extends Error {}
/** The same subject (a session, an interview) already has an interactive run under way in this process. */
export class SandboxSubjectBusyError extends Error {}

export interface ExecutionLimits {
  timeLimitMs: number;
  memoryLimitMb: number;
}

export interface CaseInput {
  name: string;
  input: string;
  /** Compared with the comparator when present. */
  expected?: string;
  /** Files this case alone sees beside the program (a checker's expectations for this case). */
  files?: StepFile[];
}

export interface CaseOutcome {
  name: string;
  verdict: RunVerdict;
  stdout: Buffer;
  stderr: Buffer;
  exitCode: number | null;
  signal: number;
  /** CPU time (user + system) of every process of the run. */
  timeMs: number;
  wallMs: number;
  memoryKb: number;
}

export interface CompileOutcome {
  ok: boolean;
  output: string;
  timeMs: number;
}

export interface Execution {
  language: string;
  compile: CompileOutcome | null;
  cases: CaseOutcome[];
}

export interface ExecuteRequest {
  language: string;
  source: string;
  cases: CaseInput[];
  comparator: string;
  limits: ExecutionLimits;
  priority: Priority;
  stdoutBytes?: number;
  /**
   * Whose run this is (a session, an interview): an interactive one is refused while the same subject has one under
   * way here, so a candidate who fires runs at once cannot take every slot from everyone else.
   */
  subject?: string;
  /**
   * Wall-clock time for all the cases together, counted once a slot is held (a batch caller waits at most as long
   * for one): once it is spent, the cases not yet run are reported as TIME_LIMIT_EXCEEDED without running (a
   * submission that sleeps on every case cannot hold a judge forever).
   */
  budgetMs?: number;
  /**
   * false: a case's stdout and stderr are dropped once its verdict is decided (judging uses verdicts only; kept, a
   * program printing its 32 MiB on every case held them all until the last case).
   */
  keepOutput?: boolean;
}

const COMPILE_LIMITS = { cpuMs: 10_000, wallMs: 20_000, fileSizeMb: 64, openFiles: 256, stdoutBytes: 256 * 1024, stderrBytes: 256 * 1024 };
const COMPILE_OUTPUT_SHOWN = 16 * 1024;
const ARTIFACT_MAX_BYTES = 64 * 1_048_576;
const RUN_STDOUT_BYTES = 32 * 1_048_576;
const RUN_STDERR_BYTES = 1_048_576;

export interface SandboxStatus {
  available: boolean;
  reason: string | null;
  languages: Language[];
}

/** The service's directory: two levels up from src/sandbox/ or dist/sandbox/. */
const SERVICE_ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** This process's slots: each its own uid (and gid), base + (pid mod 65536) * 64 + slot. */
export function slotIdentities(config: Pick<Config['sandbox'], 'uidBase' | 'slots'>): SlotIdentity[] {
  const first = config.uidBase + (process.pid % 65_536) * 64;
  return Array.from({ length: config.slots }, (_, i) => ({ uid: first + i, gid: first + i }));
}

/**
 * The process's code-execution service: the launcher, the detected languages and the slots. One per
 * process; the API's runs and a worker's judging share its slots (runs first).
 */
export function createSandbox(config: Config['sandbox']) {
  const root = process.getuid?.() === 0;
  const pool = new SlotPool(slotIdentities(config));
  let statusPromise: Promise<SandboxStatus> | null = null;
  /** The mounts hiding the service's directories that a system mount shows (set by the probe, before any step). */
  let hidden: string[] = [];

  async function probe(): Promise<SandboxStatus> {
    if (!root) {
      return { available: false, reason: 'code execution needs the service to start as root: each slot drops to its own unprivileged uid', languages: [] };
    }
    // The service's own directory (its code, the catalogue's hidden cases) and its data must be out of every sandbox's
    // sight: under /usr (a global npm install, /usr/src/app, /usr/local/var/prep) each is hidden under an empty tmpfs.
    try {
      hidden = hidingMounts([...config.privateDirs, SERVICE_ROOT]);
    } catch (error) {
      return { available: false, reason: `code execution is refused: a directory of the service under /usr could not be hidden from the sandboxes (${(error as Error).message})`, languages: [] };
    }
    let launcher: Launcher;
    try {
      launcher = await launcherBinary(config.dir);
    } catch (error) {
      if (error instanceof ConfigError) return { available: false, reason: `code execution is unavailable: ${error.message}`, languages: [] };
      return { available: false, reason: `the sandbox launcher could not be built (is a C compiler installed?): ${(error as Error).message}`, languages: [] };
    }
    const check = await runStep(launcher, pool.identities[0]!, {
      argv: ['/usr/bin/true'], files: [], limits: { ...COMPILE_LIMITS, cpuMs: 2000, wallMs: 5000, addressSpaceMb: 256, processes: 16 },
    }, hidden);
    if (check.launchError || check.exitCode !== 0) {
      const why = check.launchError ?? check.stderr.toString('utf8').trim();
      return { available: false, reason: `bubblewrap could not start a sandbox (install the bubblewrap package): ${why}`, languages: [] };
    }
    return { available: true, reason: null, languages: await detectLanguages() };
  }

  /** Each slot's next sandbox, made as soon as the slot's previous step ended. */
  const warm = new Map<number, WarmSandbox>();

  function prepare(launcher: Launcher, slot: SlotIdentity): void {
    warm.set(slot.uid, warmSandbox(launcher, slot, hidden));
  }

  /** One step on a slot: in its warm sandbox when there is one, and the next one is made straight after. */
  async function step(launcher: Launcher, slot: SlotIdentity, request: StepRequest): Promise<StepResult> {
    let sandbox = warm.get(slot.uid);
    warm.delete(slot.uid);
    if (!sandbox || sandbox.child.exitCode !== null || sandbox.child.signalCode !== null) sandbox = warmSandbox(launcher, slot, hidden);
    try {
      return await runIn(sandbox, request);
    } finally {
      prepare(launcher, slot);
    }
  }

  function status(): Promise<SandboxStatus> {
    statusPromise ??= probe();
    return statusPromise;
  }

  async function ready(languageId: string): Promise<{ launcher: Launcher; language: Language }> {
    const s = await status();
    if (!s.available) throw new SandboxUnavailableError(s.reason ?? 'code execution is unavailable');
    const language = s.languages.find((l) => l.id === languageId);
    if (!language) throw new SandboxUnavailableError(`language ${languageId} is not available`);
    return { launcher: await launcherBinary(config.dir), language };
  }

  async function compile(launcher: Launcher, slot: SlotIdentity, language: Language, source: string) {
    const plan = language.compile!;
    const result = await step(launcher, slot, {
      argv: ['/bin/sh', '-c', plan.script],
      files: [{ name: language.fileName, content: source }, ...plan.files],
      limits: { ...COMPILE_LIMITS, addressSpaceMb: plan.addressSpaceMb, processes: plan.processes },
      artifactBytes: ARTIFACT_MAX_BYTES,
    });
    if (result.launchError) throw new Error(`sandbox launch failed: ${result.launchError}`);
    const output = Buffer.concat([result.stdout, result.stderr]).toString('utf8');
    let message = output.length > COMPILE_OUTPUT_SHOWN ? `${head(output, COMPILE_OUTPUT_SHOWN)}\n… (compiler output truncated)` : output;
    const ok = result.exitCode === 0 && !result.cpuExceeded && !result.timedOut && !result.outputExceeded && (result.artifact?.length ?? 0) > 0;
    if (!ok && (result.cpuExceeded || result.timedOut)) message += `\nCompilation exceeded its time limit (${COMPILE_LIMITS.cpuMs / 1000} s).`;
    if (!ok && result.outputExceeded) message += '\nCompilation produced too much output.';
    return { outcome: { ok, output: message.trim(), timeMs: result.cpuMs } satisfies CompileOutcome, artifact: ok ? result.artifact! : null };
  }

  /**
   * Compiles once (when the language compiles) and runs every case in a fresh sandbox of its own, holding
   * one slot throughout. Throws SandboxBusyError when an interactive caller would wait too long.
   */
  async function executeNow(request: ExecuteRequest): Promise<Execution> {
    const { launcher, language } = await ready(request.language);
    // The budget counts once a slot is held: time spent waiting for one (the server's load, bounded by the same
    // budget for a batch caller) must not cut a program's cases short.
    const maxWait = request.priority === 'interactive' ? config.queueWaitMs : request.budgetMs ?? Infinity;
    const held = await pool.with(request.priority, maxWait, async (slot) => {
      const deadline = Date.now() + (request.budgetMs ?? Infinity);
      let files = [{ name: language.fileName, content: request.source as string | Buffer, executable: false }];
      let compiled: CompileOutcome | null = null;
      if (language.compile) {
        const c = await compile(launcher, slot, language, request.source);
        compiled = c.outcome;
        if (!c.artifact) return { language: language.id, compile: compiled, cases: [] };
        files = [{ name: language.compile.artifact, content: c.artifact, executable: language.compile.executable }];
      }
      const { timeLimitMs, memoryLimitMb } = request.limits;
      const limits: StepLimits = {
        cpuMs: timeLimitMs, wallMs: timeLimitMs * 5 + 2000, addressSpaceMb: language.addressSpaceMb(memoryLimitMb), memoryMb: memoryLimitMb,
        processes: language.processes, fileSizeMb: 16, openFiles: 128,
        stdoutBytes: request.stdoutBytes ?? RUN_STDOUT_BYTES, stderrBytes: RUN_STDERR_BYTES,
      };
      const cases: CaseOutcome[] = [];
      for (const c of request.cases) {
        if (Date.now() > deadline) {
          cases.push({ name: c.name, verdict: 'TIME_LIMIT_EXCEEDED', stdout: Buffer.alloc(0), stderr: Buffer.alloc(0), exitCode: null, signal: 0, timeMs: 0, wallMs: 0, memoryKb: 0 });
          continue;
        }
        const result = await step(launcher, slot, { argv: language.run(memoryLimitMb), files: c.files ? [...files, ...c.files] : files, stdin: c.input, limits });
        if (result.launchError) throw new Error(`sandbox launch failed: ${result.launchError}`);
        const outcome = outcomeOf(c, result, request.comparator, memoryLimitMb);
        cases.push(request.keepOutput === false ? { ...outcome, stdout: Buffer.alloc(0), stderr: Buffer.alloc(0) } : outcome);
      }
      return { language: language.id, compile: compiled, cases };
    });
    if (!held) throw new SandboxBusyError('every execution slot is busy');
    return held.value;
  }

  /** Subjects with an interactive run under way in this process. */
  const runningSubjects = new Set<string>();

  return {
    status,

    async languages(): Promise<Language[]> {
      return (await status()).languages;
    },

    /** executeNow, refusing (SandboxSubjectBusyError) an interactive run of a subject that has one under way. */
    async execute(request: ExecuteRequest): Promise<Execution> {
      const subject = request.priority === 'interactive' ? request.subject : undefined;
      if (subject === undefined) return executeNow(request);
      if (runningSubjects.has(subject)) throw new SandboxSubjectBusyError('a run of this subject is under way');
      runningSubjects.add(subject);
      try {
        return await executeNow(request);
      } finally {
        runningSubjects.delete(subject);
      }
    },
  };

}

function outcomeOf(c: CaseInput, result: StepResult, comparator: string, memoryLimitMb: number): CaseOutcome {
  const failed = executionVerdict(result, memoryLimitMb);
  let verdict: RunVerdict;
  if (failed) verdict = failed;
  else if (c.expected === undefined) verdict = 'COMPLETED';
  else verdict = outputsMatch(comparator, c.expected, result.stdout.toString('utf8')) ? 'ACCEPTED' : 'WRONG_ANSWER';
  return {
    name: c.name, verdict, stdout: result.stdout, stderr: result.stderr, exitCode: result.exitCode, signal: result.signal,
    timeMs: result.cpuMs, wallMs: result.wallMs, memoryKb: result.memoryKb,
  };
}

export type Sandbox = ReturnType<typeof createSandbox>;

const perProcess = new Map<number, { config: Config['sandbox']; sandbox: Sandbox }>();

/**
 * The process's sandbox: slots are per process (their uids derive from the pid), so every app built in
 * one process (tests build many) shares one set of slots per uid base.
 */
export function processSandbox(config: Config['sandbox']): Sandbox {
  const existing = perProcess.get(config.uidBase);
  if (existing) {
    if (existing.config.slots !== config.slots || existing.config.queueWaitMs !== config.queueWaitMs) {
      throw new Error('two sandbox configurations in one process must use different PREP_SANDBOX_UID_BASE values');
    }
    return existing.sandbox;
  }
  const sandbox = createSandbox(config);
  perProcess.set(config.uidBase, { config, sandbox });
  return sandbox;
}
