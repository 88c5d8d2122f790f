import { mkdirSync, promises as fs, statSync, type Stats } from 'node:fs';
import path from 'node:path';
import { ConfigError, type Config } from '../config.js';

/**
 * The service's directories (PREP_DATA_DIR, PREP_STORAGE_DIR, PREP_SANDBOX_DIR) are made, with the folders above them
 * that are missing, one folder at a time rather than by Node's recursive mkdir: a path through a regular file failed
 * with mkdir's EEXIST stack, and one under /proc (where mkdir answers ENOENT however often the parent exists) made it
 * spin for ever, at 100% CPU (the promise form spins on a libuv thread, and its caller waits for ever). Either is a
 * ConfigError naming the setting, in a sentence. The steps (stat, mkdir) are yielded, each answered with its outcome
 * (the Stats, DONE, or the error), so that one plan serves the blocking and the non-blocking forms.
 */
function* plan(dir: string, setting: string): Generator<{ stat: string } | { mkdir: string }, void, Stats | Error> {
  const refuse = (why: string) => new ConfigError(`${setting} (${dir}): ${why}`);
  const target = path.resolve(dir);
  const missing: string[] = [];
  for (let at = target; ; at = path.dirname(at)) {
    const stats = yield { stat: at };
    if (stats instanceof Error) {
      const code = (stats as NodeJS.ErrnoException).code;
      if (code === 'ENOTDIR') throw refuse('not a directory (a file is on its path)');
      if (code !== 'ENOENT' || path.dirname(at) === at) throw refuse(`cannot be read (${stats.message})`);
      missing.unshift(at);
      continue;
    }
    if (!stats.isDirectory()) throw refuse(at === target ? 'not a directory' : `not a directory (${at} is a file)`);
    break;
  }
  for (const folder of missing) {
    const failed = yield { mkdir: folder };
    if (!(failed instanceof Error)) continue;
    if ((failed as NodeJS.ErrnoException).code === 'EEXIST') {
      const stats = yield { stat: folder };
      if (!(stats instanceof Error) && stats.isDirectory()) continue; // made meanwhile
    }
    throw refuse(`cannot be made (${failed.message})`);
  }
}

const DONE = Object.freeze({}) as Stats;

/** Makes `dir` (mode `mode`, owner-only by default) and the folders above it that are missing; a ConfigError naming `setting` when it cannot. */
export function makeDirectory(dir: string, setting: string, mode = 0o700): void {
  const steps = plan(dir, setting);
  for (let step = steps.next(DONE); !step.done; ) {
    let answer: Stats | Error = DONE;
    try {
      if ('stat' in step.value) answer = statSync(step.value.stat);
      else mkdirSync(step.value.mkdir, { mode });
    } catch (error) {
      answer = error as Error;
    }
    step = steps.next(answer);
  }
}

/** makeDirectory without blocking the event loop (for a request's folders). */
export async function makeDirectoryAsync(dir: string, setting: string, mode = 0o700): Promise<void> {
  const steps = plan(dir, setting);
  for (let step = steps.next(DONE); !step.done; ) {
    let answer: Stats | Error = DONE;
    try {
      if ('stat' in step.value) answer = await fs.stat(step.value.stat);
      else await fs.mkdir(step.value.mkdir, { mode });
    } catch (error) {
      answer = error as Error;
    }
    step = steps.next(answer);
  }
}

/**
 * At the start of `prep serve` and `prep worker`: the directories they write to, made now, so that a bad setting is
 * said at once rather than by the first upload or code run. The sandbox's only where code can run (as root).
 */
export function makeServiceDirectories(config: Pick<Config, 'storage' | 'sandbox'>): void {
  if (!config.storage.s3) makeDirectory(config.storage.dir, 'PREP_STORAGE_DIR');
  if (process.getuid?.() === 0) makeDirectory(config.sandbox.dir, 'PREP_SANDBOX_DIR');
}
