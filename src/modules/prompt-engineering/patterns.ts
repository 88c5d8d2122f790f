import { Worker } from 'node:worker_threads';
import { REPLY_MAX_BYTES } from '../../ai/model.js';
import { splitType } from './assertions.js';
import type { LoadedTask } from './content.js';

/**
 * Regular expressions run in process on outputs a candidate steers, so one that backtracks (`^(\w+\s?)+$`) lets a
 * candidate hold the grading worker's event loop (and, under `prep serve`, the API) for minutes or for ever. The
 * shared catalogue's are tried in its tests; an organisation's own are tried here, as they are added.
 */

/** Longest one match may take on a hostile output before its pattern is refused. */
const PATTERN_MAX_MS = 100;
/** A match that has not returned by then is over PATTERN_MAX_MS whatever the machine; its worker is stopped. */
const STALL_MS = 1000;

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

// Runs in a worker thread, so a pattern that never returns can be stopped: a message as each pattern begins and one
// per match tried.
const TRIAL = `
const { parentPort, workerData } = require('node:worker_threads');
const { patterns, outputs, from } = workerData;
for (let i = from; i < patterns.length; i++) {
  parentPort.postMessage({ i, ms: 0 });
  const re = new RegExp(patterns[i].pattern, patterns[i].flags);
  for (const output of outputs) {
    const started = performance.now();
    re.exec(output);
    parentPort.postMessage({ i, ms: performance.now() - started });
  }
}
`;

/**
 * The patterns that take over PATTERN_MAX_MS (or never finish) on some hostile output, each as "where: why".
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
      let timer: NodeJS.Timeout;
      const stall = () => {
        clearTimeout(timer);
        timer = setTimeout(() => {
          slow.set(current, Infinity);
          void worker.terminate();
          resolve(current + 1);
        }, STALL_MS);
      };
      stall();
      worker.on('message', ({ i, ms }: { i: number; ms: number }) => {
        current = i;
        if (ms > PATTERN_MAX_MS) slow.set(i, Math.max(slow.get(i) ?? 0, ms));
        stall();
      });
      worker.on('error', (error) => { clearTimeout(timer); reject(error); });
      worker.on('exit', () => { clearTimeout(timer); resolve(distinct.length); });
    });
  }
  return [...slow].sort(([a], [b]) => a - b).map(([i, ms]) => `${distinct[i]!.where}: /${distinct[i]!.pattern}/${distinct[i]!.flags} ${
    ms === Infinity ? `did not finish within ${STALL_MS} ms` : `took ${Math.round(ms)} ms`} on a hostile output of ${REPLY_MAX_BYTES} bytes (at most ${PATTERN_MAX_MS} ms)`);
}
