import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { validateTask } from '../../src/modules/prompt-engineering/content.js';
import { patternsOf, slowPatterns } from '../../src/modules/prompt-engineering/patterns.js';

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
});
