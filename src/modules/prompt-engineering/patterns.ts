import { Worker } from 'node:worker_threads';
import { REPLY_MAX_BYTES } from '../../ai/model.js';
import { splitType } from './assertions.js';
import type { LoadedTask } from './content.js';

/**
 * Regular expressions run in process on outputs a candidate steers, so one that backtracks (`^(\w+\s?)+$`) lets a
 * candidate hold the grading worker's event loop (and, under `prep serve`, the API) for minutes or for ever. The
 * shared catalogue's are tried in its tests; an organisation's own are tried here, as they are added.
 */

/** Longest one match may take on a hostile output before its pattern is refused: CPU time of the thread that runs it. */
const PATTERN_MAX_MS = 100;
/**
 * How often a match that has not returned is looked at: once its thread has spent over PATTERN_MAX_MS of CPU on it, it
 * is refused and its worker stopped. Measured in CPU time, not on the clock, so a busy machine (the thread waiting for a
 * core) makes the check slower, never wrong: a linear pattern was once refused on a loaded machine.
 */
const STALL_CHECK_MS = 250;

/**
 * Outputs as large as a model reply may be that make a backtracking pattern try every split: a long run of one unit,
 * alone or after a start and before an end (`^- [^\n]+\s*$` on "- " + spaces + "\nZ" was quadratic).
 */
function hostileOutputs(n = REPLY_MAX_BYTES): string[] {
  const fill = (start: string, unit: string, end: string) => start + unit.repeat(Math.ceil(n / unit.length)).slice(0, n - start.length - end.length) + end;
  const units = ['a', '1', ' ', '\n', '\t', 'a ', '1 ', '- ', 'a@', 'a.', 'a-', '1.', '1,', 'ab1 ', '°1', '\t '];
  return units.flatMap((unit) => ['', '- ', 'a'].flatMap((start) => ['', '\nZ', '!'].map((end) => fill(start, unit, end))));
}

export interface Pattern {
  where: string;
  pattern: string;
  flags: string;
}

/** Schema keywords whose value maps names to schemas; `patternProperties`' names are patterns. */
const SCHEMA_MAPS = new Set(['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas']);
/** Schema keywords whose value is data, never a schema. */
const SCHEMA_DATA = new Set(['const', 'enum', 'default', 'examples']);

/** The regular expressions of a JSON schema (`pattern`, `patternProperties`), which Ajv runs on the output's strings. */
function schemaPatterns(schema: unknown, out: string[]): string[] {
  if (Array.isArray(schema)) schema.forEach((s) => schemaPatterns(s, out));
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) return out;
  for (const [key, value] of Object.entries(schema)) {
    if (SCHEMA_DATA.has(key)) continue;
    if (key === 'pattern' && typeof value === 'string') out.push(value);
    else if (SCHEMA_MAPS.has(key) && typeof value === 'object' && value !== null && !Array.isArray(value)) {
      if (key === 'patternProperties') out.push(...Object.keys(value));
      Object.values(value).forEach((s) => schemaPatterns(s, out));
    } else schemaPatterns(value, out);
  }
  return out;
}

/**
 * Every regex assertion of the tasks (negated ones too), and every pattern in a json-schema assertion (run by Ajv with
 * the u flag), named by task, case and position.
 */
export function patternsOf(tasks: LoadedTask[]): Pattern[] {
  return tasks.flatMap((t) => [...t.definition.sample_cases, ...t.definition.hidden_cases].flatMap((c) => c.assert.flatMap((a, i) => {
    const where = `${t.file.slug} ${c.name} assert[${i}]`;
    const base = splitType(a.type).base;
    if (base === 'regex') return [{ where, pattern: a.value as string, flags: a.flags ?? '' }];
    return base === 'json-schema' ? schemaPatterns(a.value, []).map((pattern) => ({ where, pattern, flags: 'u' })) : [];
  })));
}

// Runs in a worker thread, so a pattern that never returns can be stopped: a message once the thread is ready, as each
// pattern begins and per match tried, each with the thread's CPU time so far (µs) and the match's own (ms).
const TRIAL = `
const { parentPort, workerData } = require('node:worker_threads');
const { patterns, outputs, from } = workerData;
// The thread's CPU time in µs (the clock's on a Node.js before 22.15, which cannot tell).
const cpu = process.threadCpuUsage ? () => { const u = process.threadCpuUsage(); return u.user + u.system; } : () => performance.now() * 1000;
parentPort.postMessage({ i: from, ready: true, cpu: cpu() });
for (let i = from; i < patterns.length; i++) {
  const re = new RegExp(patterns[i].pattern, patterns[i].flags);
  parentPort.postMessage({ i, ms: 0, cpu: cpu() });
  for (const output of outputs) {
    const started = cpu();
    re.exec(output);
    const now = cpu();
    parentPort.postMessage({ i, ms: (now - started) / 1000, cpu: now });
  }
}
`;

interface TrialMessage { i: number; ms: number; cpu: number; ready?: boolean }

/**
 * The patterns that take over PATTERN_MAX_MS of CPU time (or never finish) on some hostile output, each as "where: why".
 * Distinct patterns are tried once each.
 */
export async function slowPatterns(patterns: Pattern[]): Promise<string[]> {
  const distinct = [...new Map(patterns.map((p) => [`${p.flags}/${p.pattern}`, p])).values()];
  if (distinct.length === 0) return [];
  const outputs = hostileOutputs();
  const slow = new Map<number, number>();
  let from = 0;
  while (from < distinct.length) {
    from = await new Promise<number>((resolve, reject) => {
      const worker = new Worker(TRIAL, { eval: true, workerData: { patterns: distinct, outputs, from } });
      let current = from;
      /** The thread's CPU time (µs) at its last message; null until it is ready (starting a thread is not a match). */
      let cpuAtLast: number | null = null;
      let settled = false;
      const finish = (next: number) => {
        if (settled) return;
        settled = true;
        clearInterval(timer);
        resolve(next);
      };
      const stop = () => {
        slow.set(current, Infinity);
        void worker.terminate();
        finish(current + 1);
      };
      let quietTicks = 0;
      let atLastTick: number | null = null;
      const timer = setInterval(() => {
        if (cpuAtLast === null) return;
        const since = cpuAtLast;
        if (typeof worker.cpuUsage !== 'function') {
          // A Node.js before 24.6 cannot read a thread's CPU time from outside: a match with no answer for a second
          // on the clock is refused, as every Node.js did before.
          quietTicks = since === atLastTick ? quietTicks + 1 : 0;
          atLastTick = since;
          if (quietTicks * STALL_CHECK_MS >= 1000) stop();
          return;
        }
        // The thread's messages are read after the timers of a loop's turn: a parent held up (a busy machine) finds them
        // waiting, so the verdict waits one turn (setImmediate) for them to be read before it trusts "no message since".
        worker.cpuUsage().then(async ({ user, system }) => {
          await new Promise((r) => setImmediate(r));
          if (settled || cpuAtLast !== since || user + system - since <= PATTERN_MAX_MS * 1000) return; // moved on, or not yet over
          stop();
        }, () => undefined); // the thread has just ended: its exit settles this run
      }, STALL_CHECK_MS);
      worker.on('message', ({ i, ms, cpu, ready }: TrialMessage) => {
        current = i;
        cpuAtLast = cpu;
        if (!ready && ms > PATTERN_MAX_MS) slow.set(i, Math.max(slow.get(i) ?? 0, ms));
      });
      worker.on('error', (error) => {
        settled = true;
        clearInterval(timer);
        reject(error);
      });
      worker.on('exit', () => finish(distinct.length));
    });
  }
  return [...slow].sort(([a], [b]) => a - b).map(([i, ms]) => `${distinct[i]!.where}: /${distinct[i]!.pattern}/${distinct[i]!.flags} ${
    ms === Infinity ? `did not finish within ${PATTERN_MAX_MS} ms of CPU time` : `took ${Math.round(ms)} ms of CPU time`} on a hostile output of ${REPLY_MAX_BYTES} bytes (at most ${PATTERN_MAX_MS} ms)`);
}
