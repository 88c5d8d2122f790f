import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { validateTask } from '../../src/modules/prompt-engineering/content.js';
import { patternsOf, slowPatterns } from '../../src/modules/prompt-engineering/patterns.js';
import { ROOT, until } from '../helpers/processes.js';

const DIR = fileURLToPath(new URL('../fixtures/prompt-engineering/tasks/fixture-echo/', import.meta.url));

/** The fixture task with one more assertion on every case. */
function taskWith(extra: object) {
  const file = JSON.parse(readFileSync(`${DIR}task.json`, 'utf8'));
  file.assert.push(extra);
  const checkers = { 'checkers/check_count.py': readFileSync(`${DIR}checkers/check_count.py`, 'utf8') };
  return validateTask(file, readFileSync(`${DIR}brief.md`, 'utf8'), checkers, 'fixture-echo');
}

describe('the regular expressions tried before an organisation\'s tasks are saved', () => {
  // Was a bug: only `regex` assertions were tried, but a json-schema's `pattern` and `patternProperties` are regular
  // expressions too, run in process (by Ajv, with the u flag) on strings the candidate's prompt steers:
  // {"code": "aaaa…!"} against "pattern": "^(\\w+\\s?)+$" held the grading worker for longer than anyone would wait.
  it('include a json-schema\'s pattern and patternProperties, nested anywhere, but not its data', () => {
    const task = taskWith({
      type: 'not-json-schema',
      value: {
        type: 'object',
        properties: { code: { type: 'string', pattern: '^(\\w+\\s?)+$' }, enum: { anyOf: [{ pattern: '^[a-z]+$' }] } },
        patternProperties: { '^x-(a|a)+$': { items: { pattern: '\\d' } } },
        $defs: { n: { propertyNames: { pattern: '^[a-z]{1,8}$' } } },
        examples: [{ pattern: 'not a pattern: (' }], const: { pattern: '(' },
      },
    });
    const found = [...new Set(patternsOf([task]).filter((p) => p.flags === 'u').map((p) => p.pattern))].sort();
    expect(found).toEqual(['\\d', '^(\\w+\\s?)+$', '^[a-z]+$', '^[a-z]{1,8}$', '^x-(a|a)+$'].sort());
    expect(patternsOf([task])[0]!.where).toMatch(/^fixture-echo \S+ assert\[\d+\]$/);
  });

  it('refuse a json-schema pattern that backtracks', async () => {
    const task = taskWith({ type: 'json-schema', value: { type: 'object', properties: { code: { type: 'string', pattern: '^(\\w+\\s?)+$' } } } });
    const slow = await slowPatterns(patternsOf([task]));
    expect(slow.length).toBeGreaterThan(0);
    expect(slow[0]).toMatch(/\^\(\\w\+\\s\?\)\+\$\/u did not finish/);
  }, 30_000);

  // Was a flake, and a refusal a customer would meet: a match's time was read on the clock, and a trial with no answer
  // for 1 s was stopped, so on a loaded machine (CI at load 15) the fixture's linear /"COUNT":\s*3\b/i "did not finish
  // within 1000 ms" and the folder was refused. Time is now the trial thread's CPU time. Here the process gets no CPU
  // at all for 3 s (stopped as its trial starts, as a busy machine can leave it), and nothing is refused for it.
  it('refuse nothing because the machine was busy: a process that got no CPU for 3 s refuses no linear pattern', async () => {
    const module = pathToFileURL(path.join(ROOT, 'dist/modules/prompt-engineering/patterns.js')).href;
    const script = path.join(mkdtempSync(path.join(tmpdir(), 'prep-patterns-')), 'stopped.mjs');
    writeFileSync(script, [
      `import { slowPatterns } from ${JSON.stringify(module)};`,
      'const checking = slowPatterns([{ where: "linear", pattern: String.raw`"count":\\s*3\\b`, flags: "i" }]);',
      'process.kill(process.pid, "SIGSTOP");',
      'process.stdout.write(JSON.stringify(await checking));',
    ].join('\n'));
    const child = spawn(process.execPath, [script], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    const exited = new Promise((resolve) => child.on('exit', resolve));
    const state = () => readFileSync(`/proc/${child.pid}/stat`, 'utf8').replace(/^.*\) /s, '')[0];
    await until(() => state() === 'T', 20_000);
    await new Promise((r) => setTimeout(r, 3000));
    child.kill('SIGCONT');
    expect(await exited).toBe(0);
    expect(JSON.parse(out)).toEqual([]);
    rmSync(path.dirname(script), { recursive: true, force: true });
  }, 60_000);
});
