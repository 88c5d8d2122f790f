/** How a program's output is compared with the expected output. */
export type Comparator = 'exact' | 'whitespace' | 'unordered_lines' | `float:${string}`;

export function isComparator(value: string): value is Comparator {
  return value === 'exact' || value === 'whitespace' || value === 'unordered_lines' || /^float:\d+(\.\d+)?(e-?\d+)?$/i.test(value);
}

// String.prototype.trimEnd strips what `\s` matches, in linear time: `/\s+$/` retries every run of white space that
// is not at the end, which on a line of "x", spaces, "x" is quadratic (64 kB of output took 2.5 s).
const trimEnd = (s: string) => s.trimEnd();
/** A number as a program prints one, in decimal: `Number()` would also read 0x1a, 0b11, 0o7 and "Infinity". */
const DECIMAL = /^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i;
const lines = (s: string) => trimEnd(s.replace(/\r\n/g, '\n')).split('\n').map(trimEnd);
const tokens = (s: string) => s.split(/\s+/).filter(Boolean);

/**
 * exact: equal after normalising line endings and trailing whitespace at line and file ends;
 * whitespace: equal token sequences; float:<tol>: tokens equal, numeric tokens within the absolute or
 * relative tolerance; unordered_lines: the same multiset of (trimmed, non-empty) lines.
 */
export function outputsMatch(comparator: string, expected: string, actual: string): boolean {
  if (comparator === 'exact') {
    const a = lines(expected);
    const b = lines(actual);
    return a.length === b.length && a.every((line, i) => line === b[i]);
  }
  if (comparator === 'whitespace') return sameTokens(tokens(expected), tokens(actual), () => false);
  if (comparator === 'unordered_lines') {
    const sort = (s: string) => lines(s).map((l) => l.trim()).filter(Boolean).sort();
    const a = sort(expected);
    const b = sort(actual);
    return a.length === b.length && a.every((line, i) => line === b[i]);
  }
  if (comparator.startsWith('float:')) {
    const tolerance = Number(comparator.slice('float:'.length));
    return sameTokens(tokens(expected), tokens(actual), (x, y) => {
      if (!DECIMAL.test(x) || !DECIMAL.test(y)) return false;
      const a = Number(x);
      const b = Number(y);
      if (!Number.isFinite(a) || !Number.isFinite(b)) return false;
      const diff = Math.abs(a - b);
      return diff <= tolerance || diff <= tolerance * Math.abs(a);
    });
  }
  throw new Error(`unknown comparator ${comparator}`);
}

function sameTokens(a: string[], b: string[], close: (x: string, y: string) => boolean): boolean {
  return a.length === b.length && a.every((t, i) => t === b[i] || close(t, b[i]!));
}
