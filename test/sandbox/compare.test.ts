import { describe, expect, it } from 'vitest';
import { outputsMatch } from '../../src/sandbox/compare.js';

describe('output comparators', () => {
  it('exact: line endings and trailing white space at line and file ends do not count; anything else does', () => {
    expect(outputsMatch('exact', '1 2\n3\n', '1 2  \r\n3\n\n\n')).toBe(true);
    expect(outputsMatch('exact', '1 2\n3\n', '1  2\n3\n')).toBe(false);
    expect(outputsMatch('exact', '1\n2\n', '2\n1\n')).toBe(false);
  });

  it('whitespace, unordered_lines and float read tokens, lines and numbers as documented', () => {
    expect(outputsMatch('whitespace', '1 2\n3', ' 1\t2 3 ')).toBe(true);
    expect(outputsMatch('unordered_lines', 'a\nb\nb\n', 'b\n a\nb')).toBe(true);
    expect(outputsMatch('unordered_lines', 'a\nb\nb\n', 'a\nb\n')).toBe(false);
    expect(outputsMatch('float:1e-6', '0.3333333 2e3\n', '0.33333331 2000.0000001\n')).toBe(true);
    expect(outputsMatch('float:1e-6', '0.5\n', '0.6\n')).toBe(false);
  });

  // Was a bug: Number() read other spellings, so "0x1a" passed for 26.
  it('float: takes decimal numbers only (not hexadecimal, binary, octal or Infinity)', () => {
    for (const [expected, actual] of [['26', '0x1a'], ['3', '0b11'], ['7', '0o7'], ['1e308', 'Infinity'], ['5', '+5'], ['.5', '0.5']]) {
      expect(outputsMatch('float:1e-6', `${expected}\n`, `${actual}\n`), actual).toBe(actual === '+5' || actual === '0.5');
    }
  });

  // Was a bug: trimming with /\s+$/ retried every run of spaces not at the end: 64 kB took 2.5 s on the event loop.
  it('compares a 256 KiB output of one line of spaces between two letters in linear time', () => {
    const actual = `x${' '.repeat(1 << 18)}x`;
    for (const comparator of ['exact', 'unordered_lines', 'whitespace', 'float:1e-6']) expect(outputsMatch(comparator, '1\n', actual)).toBe(false);
  }, 5_000); // milliseconds now; the quadratic trim took over a minute

  // Was a bug: every comparator split the whole output before looking at it, so a submission printing its 32 MiB cap
  // of short lines held the judging process (the API's, under prep serve) 4–8 s per case and about 800 MB.
  it('decides on a 32 MiB output of short lines or tokens without splitting it all', () => {
    const outputs = ['a\n'.repeat(16 * 1_048_576), 'a '.repeat(16 * 1_048_576), `1\n${'a\n'.repeat(16 * 1_048_576)}`];
    const started = performance.now();
    for (const actual of outputs) {
      for (const comparator of ['exact', 'whitespace', 'unordered_lines', 'float:1e-6']) expect(outputsMatch(comparator, '1\n', actual), comparator).toBe(false);
    }
    // About 0.4 s here; splitting it all took 4–8 s per check, twelve checks.
    expect(performance.now() - started).toBeLessThan(5_000);
  }, 60_000);

  it('edges: empty outputs, blank tails, CRLF and one side running out first', () => {
    for (const comparator of ['exact', 'whitespace', 'unordered_lines', 'float:1e-6']) {
      expect(outputsMatch(comparator, '', ''), comparator).toBe(true);
      expect(outputsMatch(comparator, '\n', ' \r\n\t\n'), comparator).toBe(true);
      expect(outputsMatch(comparator, '1\n2\n', '1\r\n2\r\n \r\n'), comparator).toBe(true);
      expect(outputsMatch(comparator, '1\n2\n', '1\n'), comparator).toBe(false);
      expect(outputsMatch(comparator, '1\n', '1\n2\n'), comparator).toBe(false);
      expect(outputsMatch(comparator, '1\n', ''), comparator).toBe(false);
      expect(outputsMatch(comparator, '', '1\n'), comparator).toBe(false);
    }
    expect(outputsMatch('exact', '1\n\n2\n', '1\n2\n')).toBe(false);
    expect(outputsMatch('exact', ' 1\n', '1\n')).toBe(false);
    expect(outputsMatch('exact', 'a\r\r\nb', 'a\nb')).toBe(true);
    expect(outputsMatch('whitespace', '1\n\n2\n', '1 2')).toBe(true);
    expect(outputsMatch('unordered_lines', 'x\n\ny\n', ' y \nx')).toBe(true);
    expect(outputsMatch('unordered_lines', 'x\nx\ny\n', 'x\ny\ny\n')).toBe(false);
  });

  // Was a bug: the decimal pattern tried every split of a run of digits between integer and fraction: a run's 1 MiB
  // token of digits and an x held the event loop for hours (100,000 digits: 55 s).
  it('float: reads a long token of digits in linear time', () => {
    const started = performance.now();
    expect(outputsMatch('float:1e-6', '1\n', `${'1'.repeat(100_000)}x\n`)).toBe(false);
    expect(outputsMatch('float:1e-6', '1\n', `${'1'.repeat(100_000)}.${'1'.repeat(100_000)}x\n`)).toBe(false);
    expect(performance.now() - started).toBeLessThan(2_000);
  }, 60_000);
});
