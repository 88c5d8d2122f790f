import type { StepResult } from './runner.js';

/** The judge's verdicts; `PENDING` until a submission is judged. */
export const VERDICTS = [
  'ACCEPTED', 'WRONG_ANSWER', 'TIME_LIMIT_EXCEEDED', 'MEMORY_LIMIT_EXCEEDED', 'RUNTIME_ERROR', 'COMPILE_ERROR',
  'OUTPUT_LIMIT_EXCEEDED',
] as const;
export type Verdict = (typeof VERDICTS)[number];
/** A run on custom input that ended normally (nothing to compare it with). */
export type RunVerdict = Verdict | 'COMPLETED';

/** Runtimes' words for running out of memory, on stderr. */
const OUT_OF_MEMORY = /MemoryError|std::bad_alloc|OutOfMemoryError|heap out of memory|Cannot allocate memory|memory allocation of \d+ bytes failed|out of memory/i;

/** What ended a run, before its output is compared (null: it exited cleanly). */
export function executionVerdict(result: StepResult, memoryLimitMb: number): Verdict | null {
  if (result.outputExceeded) return 'OUTPUT_LIMIT_EXCEEDED';
  if (result.cpuExceeded || result.timedOut) return 'TIME_LIMIT_EXCEEDED';
  const failed = result.exitCode !== 0 || result.signal !== 0;
  if (result.memoryKb > memoryLimitMb * 1024) return 'MEMORY_LIMIT_EXCEEDED';
  if (failed && OUT_OF_MEMORY.test(result.stderr.subarray(-4096).toString('utf8'))) return 'MEMORY_LIMIT_EXCEEDED';
  if (failed) return 'RUNTIME_ERROR';
  return null;
}
