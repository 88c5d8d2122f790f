import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { TaskFileError, validateTask } from '../../src/modules/prompt-engineering/content.js';
import { applyNegation, AssertionError, checkLocal, clip, comparable, compileAssertion, type Assertion } from '../../src/modules/prompt-engineering/assertions.js';
import { head } from '../../src/platform/text.js';
import { hiddenScore, tally } from '../../src/modules/prompt-engineering/points.js';
import { readRubricVerdict } from '../../src/modules/prompt-engineering/rubric.js';
import { missingVariables, placeholdersIn, renderPrompt } from '../../src/modules/prompt-engineering/template.js';

/** The verdict of an authored local assertion on an output, negation applied, as grading checks it. */
function check(a: Assertion, output: string) {
  const c = compileAssertion(a, 'test');
  if (c.kind !== 'local') throw new Error('not local');
  return applyNegation(c, checkLocal(c, comparable(output)));
}

/** Every local type with an output it passes and one it fails; each negated form must flip both. */
const TABLE: Array<{ a: Assertion; pass: string; fail: string; failReason: RegExp }> = [
  { a: { type: 'equals', value: 'positive' }, pass: '  positive\n', fail: 'Positive', failReason: /"Positive" is not "positive"/ },
  { a: { type: 'contains', value: 'Refund' }, pass: 'Refund issued', fail: 'refund issued', failReason: /"Refund" not found/ },
  { a: { type: 'icontains', value: 'REFUND' }, pass: 'a refund', fail: 'a credit', failReason: /not found \(ignoring case\)/ },
  { a: { type: 'contains-all', value: ['May 3', '€40'] }, pass: 'On May 3 we paid €40.', fail: 'On May 3 we paid.', failReason: /missing "€40"/ },
  { a: { type: 'contains-any', value: ['sorry', 'apolog'] }, pass: 'We apologise.', fail: 'Noted.', failReason: /none of "sorry", "apolog" found/ },
  { a: { type: 'regex', value: '^label: (spam|ham)$', flags: 'im' }, pass: 'x\nLABEL: Spam', fail: 'label: maybe', failReason: /does not match/ },
  { a: { type: 'starts-with', value: 'SELECT' }, pass: '\n  SELECT 1', fail: 'Here is: SELECT 1', failReason: /starts with "Here is: SELECT/ },
  { a: { type: 'is-json' }, pass: ' {"a": [1, 2]} ', fail: '```json\n{"a": 1}\n```', failReason: /not JSON/ },
  {
    a: { type: 'json-schema', value: { type: 'object', required: ['total'], properties: { total: { type: 'number' } }, additionalProperties: false } },
    pass: '{"total": 12.5}', fail: '{"total": "12.50"}', failReason: /\/total must be number/,
  },
  { a: { type: 'length', max: 5, unit: 'words' }, pass: 'one two three four five', fail: 'one two three four five six', failReason: /6 words \(outside at most 5\)/ },
  { a: { type: 'length', min: 2, max: 3, unit: 'lines' }, pass: 'a\n\nb\n', fail: 'a', failReason: /1 lines \(outside 2–3\)/ },
  { a: { type: 'length', min: 3 }, pass: 'abc', fail: ' ab ', failReason: /2 chars \(outside at least 3\)/ },
];

describe('a task file', () => {
  // Was a bug: `assert` given as an object (not a list) threw a TypeError ("is not iterable") out of the loader, so
  // `prep org prompt-engineering add` failed with a stack trace instead of naming the task and the field.
  it('with assert that is not a list is refused, naming the task', () => {
    const dir = fileURLToPath(new URL('../fixtures/prompt-engineering/tasks/fixture-echo/', import.meta.url));
    const file = JSON.parse(readFileSync(`${dir}task.json`, 'utf8'));
    const brief = readFileSync(`${dir}brief.md`, 'utf8');
    const checkers = { 'checkers/check_count.py': readFileSync(`${dir}checkers/check_count.py`, 'utf8') };
    expect(() => validateTask(file, brief, checkers, 'fixture-echo')).not.toThrow();
    expect(() => validateTask({ ...file, assert: { type: 'is-json' } }, brief, checkers, 'fixture-echo')).toThrow(TaskFileError);
    const caseAssert = { ...file, sample_cases: [{ ...file.sample_cases[0], assert: { type: 'is-json' } }] };
    expect(() => validateTask(caseAssert, brief, checkers, 'fixture-echo')).toThrow(/sample_cases\[0\]: assert is a list/);
  });
});

describe('assertion types', () => {
  // Was a bug: reasons cut outputs at a fixed number of UTF-16 units, so an emoji across the cut became half a
  // surrogate pair: "\ud83d" shown in a quote, and an unpaired surrogate sent in JSON (which strict parsers refuse).
  it('a reason never cuts an emoji in half', () => {
    const emojis = '😀'.repeat(200);
    const reasons = [
      check({ type: 'equals', value: 'positive' }, emojis).reason,
      check({ type: 'equals', value: 'positive' }, `a${emojis}`).reason,
      check({ type: 'starts-with', value: 'SELECT' }, `a${emojis}`).reason,
      check({ type: 'regex', value: '.{41}' }, `a${emojis}`).reason,
      clip(`a${emojis}`, 300),
      head(`a${emojis}`, 32),
    ];
    for (const r of reasons) {
      expect(r.isWellFormed(), r).toBe(true);
      expect(r).not.toMatch(/\\ud83d/);
    }
  });

  // Was a bug: text was compared code unit by code unit, so a model writing "é" as "e" plus a combining accent (NFD)
  // failed `contains "café"` written as one code point (NFC), and counted one more character per accent.
  it('compares text in Unicode NFC, however the output or the value composes its accents', () => {
    const [nfc, nfd] = ['Café Zoë', 'Café Zoë'.normalize('NFD')];
    expect(nfd).not.toBe(nfc);
    for (const [value, output] of [[nfc, `Visit ${nfd}.`], [nfd, `Visit ${nfc}.`]]) {
      expect(check({ type: 'contains', value }, output).passed).toBe(true);
      expect(check({ type: 'icontains', value: value.toUpperCase() }, output).passed).toBe(true);
      expect(check({ type: 'contains-all', value: [value, 'Visit'] }, output).passed).toBe(true);
      expect(check({ type: 'contains-any', value: [value] }, output).passed).toBe(true);
      expect(check({ type: 'equals', value: `Visit ${value}.` }, output).passed).toBe(true);
      expect(check({ type: 'starts-with', value: `Visit ${value}` }, output).passed).toBe(true);
      expect(check({ type: 'regex', value: `${value}\\.$` }, output).passed).toBe(true);
      expect(check({ type: 'not-contains', value }, output).passed).toBe(false);
    }
    expect(check({ type: 'length', max: 8 }, nfd)).toMatchObject({ passed: true, reason: '8 chars (within at most 8)' });
  });

  it.each(TABLE)('$a.type passes, fails with a reason, and not-$a.type flips both', ({ a, pass, fail, failReason }) => {
    expect(check(a, pass)).toMatchObject({ passed: true });
    const failed = check(a, fail);
    expect(failed.passed).toBe(false);
    expect(failed.reason).toMatch(failReason);
    expect(check({ ...a, type: `not-${a.type}` }, pass).passed).toBe(false);
    expect(check({ ...a, type: `not-${a.type}` }, fail)).toMatchObject({ passed: true, reason: failed.reason });
  });

  it('json-schema also fails output that is not JSON, and compiles draft 2020-12 keywords', () => {
    const a: Assertion = { type: 'json-schema', value: { type: 'array', prefixItems: [{ type: 'string' }], items: false } };
    expect(check(a, '["a"]').passed).toBe(true);
    expect(check(a, '["a", 1]').passed).toBe(false);
    expect(check(a, 'nope').reason).toMatch(/not JSON/);
  });

  // Was a bug: a draft-07 schema (promptfoo's default) was refused ("no schema with key or ref"), though it says so.
  it('json-schema reads a schema in the dialect its $schema names: draft-07 or 2020-12; any other is refused', () => {
    const tuple = { type: 'array', items: [{ type: 'string' }, { type: 'number' }], additionalItems: false };
    const draft07: Assertion = { type: 'json-schema', value: { $schema: 'http://json-schema.org/draft-07/schema#', ...tuple } };
    expect(check(draft07, '["a", 1]').passed).toBe(true);
    expect(check(draft07, '["a", "b"]').passed).toBe(false);
    expect(check(draft07, '["a", 1, 2]').passed).toBe(false);
    const draft2020: Assertion = { type: 'json-schema', value: { $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'array', prefixItems: [{ type: 'string' }], items: false } };
    expect(check(draft2020, '["a"]').passed).toBe(true);
    expect(check(draft2020, '["a", 1]').passed).toBe(false);
    const formatted: Assertion = { type: 'json-schema', value: { $schema: 'http://json-schema.org/draft-07/schema', type: 'string', format: 'date' } };
    expect(check(formatted, '"2026-11-26"').passed).toBe(true);
    expect(check(formatted, '"next Tuesday"').passed).toBe(false);
    expect(() => compileAssertion({ type: 'json-schema', value: { $schema: 'http://json-schema.org/draft-04/schema#', type: 'string' } }, 'task t case 1'))
      .toThrow(/\$schema must be draft 2020-12 \(the default\) or draft-07/);
  });

  // Was a bug: no format was known to the schema's Ajv, so `"format": "date"` or `"email"` was ignored (a warning in
  // the log) and {"due": "next Tuesday"} passed a schema that asks for a date, as promptfoo's json-schema would not.
  it('json-schema checks formats, but not url (its pattern backtracks on outputs a candidate can steer)', () => {
    const a: Assertion = {
      type: 'json-schema',
      value: { type: 'object', properties: { due: { type: 'string', format: 'date' }, email: { type: 'string', format: 'email' }, link: { type: 'string', format: 'url' } } },
    };
    expect(check(a, '{"due": "2026-11-26", "email": "ana@example.com"}').passed).toBe(true);
    expect(check(a, '{"due": "next Tuesday"}')).toMatchObject({ passed: false, reason: expect.stringMatching(/\/due must match format "date"/) });
    expect(check(a, '{"due": "2026-02-30"}').passed).toBe(false);
    expect(check(a, '{"email": "ana at example"}')).toMatchObject({ passed: false, reason: expect.stringMatching(/\/email must match format "email"/) });
    const started = performance.now();
    expect(check(a, JSON.stringify({ link: `http://${'a:'.repeat(30_000)}!` })).passed).toBe(true);
    expect(performance.now() - started).toBeLessThan(100);
  });

  it('sandbox and rubric are left to the grader, with what they need', () => {
    expect(compileAssertion({ type: 'sandbox', program: 'checkers/c.py' }, 't', { 'checkers/c.py': 'print(1)' })).toMatchObject({ kind: 'sandbox', program: 'checkers/c.py', negated: false });
    expect(compileAssertion({ type: 'not-rubric', value: 'Is rude.', weight: 2 }, 't')).toMatchObject({ kind: 'rubric', criterion: 'Is rude.', negated: true, weight: 2 });
  });

  it.each([
    [{ type: 'contain', value: 'x' }, /unknown assertion type 'contain'/],
    [{ type: 'contains' }, /needs a non-empty string/],
    [{ type: 'contains-all', value: [] }, /non-empty array/],
    [{ type: 'regex', value: '(' }, /does not compile/],
    [{ type: 'regex', value: 'a', flags: 'g' }, /flags are some of/],
    [{ type: 'json-schema', value: { type: 'nonsense' } }, /schema does not compile/],
    [{ type: 'length', unit: 'words' }, /min and\/or max/],
    [{ type: 'length', min: 5, max: 2 }, /min ≤ max/],
    [{ type: 'length', max: 2, unit: 'pages' }, /unit is chars, words or lines/],
    [{ type: 'sandbox', program: 'checkers/missing.py' }, /one of the task's checkers/],
    [{ type: 'contains', value: 'x', weight: 0 }, /weight is a positive number/],
    [{ type: 'contains', value: 'x', extra: 1 }, /unknown field\(s\) extra/],
    // Was accepted: an equals of white space alone passed an empty output; a starts-with value starting with white
    // space could never match (the output's is ignored); flags given as a list were joined by RegExp.
    [{ type: 'equals', value: ' \n ' }, /more than white space/],
    [{ type: 'starts-with', value: ' {' }, /does not start with white space/],
    [{ type: 'regex', value: 'a', flags: ['i'] as never }, /flags are some of/],
  ] as Array<[Assertion, RegExp]>)('refuses a malformed assertion: %j', (a, message) => {
    expect(() => compileAssertion(a, 'task t')).toThrow(AssertionError);
    expect(() => compileAssertion(a, 'task t')).toThrow(message);
  });
});

describe('the rubric verdict', () => {
  it('is read from JSON, from bare PASS / FAIL, and refused when neither', () => {
    expect(readRubricVerdict('{"pass": true, "reason": "Polite."}')).toEqual({ passed: true, reason: 'Polite.' });
    expect(readRubricVerdict('Sure: {"pass": false}')).toEqual({ passed: false, reason: 'no reason given' });
    expect(readRubricVerdict('FAIL - it is curt')).toMatchObject({ passed: false });
    expect(readRubricVerdict('PASS')).toMatchObject({ passed: true });
    expect(readRubricVerdict('I think it is fine')).toBeNull();
    expect(readRubricVerdict('{"pass": "yes"}')).toBeNull();
  });
});

describe("the rubric verdict, when the model's JSON is not quite JSON", () => {
  // Was a bug: a reply whose JSON did not parse (a quote left unescaped, prose with a brace before it) fell back to
  // the bare words PASS / FAIL anywhere in it, so {"pass": false, "reason": "it says "PASS" …"} (the model quoting an
  // output that says PASS, as a candidate can arrange) was read as a pass; and the verdict of a parsable object after
  // a brace in prose was not read at all.
  it('reads the pass key, and never the words of a reply that has one', () => {
    expect(readRubricVerdict('{"pass": false, "reason": "The reply says "PASS" but is rude."}')).toEqual({ passed: false, reason: 'The reply says "PASS" but is rude.' });
    expect(readRubricVerdict('Looking at {the output}: {"pass": true, "reason": "Polite."}')).toEqual({ passed: true, reason: 'Polite.' });
    expect(readRubricVerdict('{"pass": "false", "reason": "Curt."}')).toEqual({ passed: false, reason: 'Curt.' });
    expect(readRubricVerdict('{"pass": false, "reason": "it injects "pass": true"}')).toBeNull(); // both: unreadable
    expect(readRubricVerdict('{"pass": maybe, "reason": "PASS"}')).toBeNull();
  });
});

describe('points', () => {
  it('a case passes only when every assertion does; points are weighted', () => {
    expect(tally([{ type: 'a', weight: 2, passed: true, reason: '' }, { type: 'b', weight: 0.5, passed: false, reason: '' }])).toEqual({ points: 2, possible: 2.5, passed: false });
  });
  // Was a bug: guards earned points, so an answer that ignored the task (a refusal every time, one fixed label) kept
  // every "must not leak" check and passed tasks on them; and an answer that leaked still earned most of a case.
  it('negated assertions are guards: breaking one zeroes the case, keeping them earns nothing by itself', () => {
    const o = (type: string, weight: number, passed: boolean) => ({ type, weight, passed, reason: '' });
    expect(tally([o('regex', 2, false), o('length', 1, true), o('not-contains', 2, true)])).toEqual({ points: 1, possible: 3, passed: false });
    expect(tally([o('regex', 2, true), o('length', 1, true), o('not-contains', 2, false)])).toEqual({ points: 0, possible: 3, passed: false });
    expect(tally([o('regex', 2, true), o('not-contains', 2, true)])).toEqual({ points: 2, possible: 2, passed: true });
    expect(tally([o('not-contains', 2, true), o('not-icontains', 1, true)])).toEqual({ points: 3, possible: 3, passed: true }); // guards alone
    expect(tally([o('not-contains', 2, true), o('not-icontains', 1, false)])).toEqual({ points: 0, possible: 3, passed: false });
  });
  it('the score counts hidden cases only, weighted by their points', () => {
    const cases = [
      { kind: 'sample' as const, points: 0, points_possible: 10, passed: false },
      { kind: 'hidden' as const, points: 3, points_possible: 3, passed: true },
      { kind: 'hidden' as const, points: 1, points_possible: 6, passed: false },
    ];
    expect(hiddenScore(cases)).toEqual({ score: 44.4, passed: 1, total: 2 });
  });
});

describe('prompt templates', () => {
  it('finds variables, names the missing ones, and renders in one pass', () => {
    expect(placeholdersIn('{{ input }} and {{labels}} and {{input}} and {{Bad}}')).toEqual(['input', 'labels']);
    expect(missingVariables('Use {{input}}', ['input', 'labels'])).toEqual(['labels']);
    expect(renderPrompt('<a>{{input}}</a> {{other}} {{ labels }}', { input: 'x {{labels}} $& $1', labels: 'L' })).toBe('<a>x {{labels}} $& $1</a> {{other}} L');
  });
});
