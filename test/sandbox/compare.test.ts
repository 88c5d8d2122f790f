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
});
