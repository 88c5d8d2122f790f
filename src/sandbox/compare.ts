/** How a program's output is compared with the expected output. */
export type Comparator = 'exact' | 'whitespace' | 'unordered_lines' | `float:${string}`;

export function isComparator(value: string): value is Comparator {
  return value === 'exact' || value === 'whitespace' || value === 'unordered_lines' || /^float:\d+(\.\d+)?(e-?\d+)?$/i.test(value);
}

/**
 * A number as a program prints one, in decimal: `Number()` would also read 0x1a, 0b11, 0o7 and "Infinity". The
 * fraction is one optional group: `\d+\.?\d*` split a run of digits between its two parts every way before failing,
 * quadratic (a token of 100,000 digits and an `x` took 55 s).
 */
const DECIMAL = /^[+-]?(\d+(\.\d*)?|\.\d+)(e[+-]?\d+)?$/i;
const NOT_BLANK = /\S/;

/**
 * The lines of a text one at a time, each without its trailing white space (a CR included), then null. An output is
 * never split up front: it may be 32 MiB of short lines, and a wrong one is told at its first differing line.
 * String.prototype.trimEnd strips what `\s` matches, in linear time: `/\s+$/` retries every run of white space that
 * is not at the end, which on a line of "x", spaces, "x" is quadratic (64 kB of output took 2.5 s).
 */
function lineReader(s: string) {
  let pos = 0;
  return {
    next(): string | null {
      if (pos > s.length) return null;
      let end = s.indexOf('\n', pos);
      if (end === -1) end = s.length;
      const line = s.slice(pos, end).trimEnd();
      pos = end + 1;
      return line;
    },
    /** Whether what is left holds anything but white space. */
    restBlank: () => pos > s.length || !NOT_BLANK.test(s.slice(pos)),
  };
}

/** The white-space separated tokens of a text one at a time, then null (read as lines are, on demand). */
function tokenReader(s: string) {
  const token = /\S+/g;
  return { next: (): string | null => token.exec(s)?.[0] ?? null };
}

export function outputsMatch(comparator: string, expected: string, actual: string): boolean {
  if (comparator === 'exact') {
    const a = lineReader(expected);
    const b = lineReader(actual);
    for (;;) {
      const x = a.next();
      const y = b.next();
      // One ran out: the other's rest must be blank (trailing white space and blank lines at the end do not count).
      if (x === null) return y === null || (y === '' && b.restBlank());
      if (y === null) return x === '' && a.restBlank();
      if (x !== y) return false;
    }
  }
  if (comparator === 'whitespace') return sameTokens(expected, actual, () => false);
  if (comparator === 'unordered_lines') {
    const sorted = (s: string, max: number): string[] | null => {
      const reader = lineReader(s);
      const out: string[] = [];
      for (let line = reader.next(); line !== null; line = reader.next()) {
        const t = line.trim();
        if (!t) continue;
        if (out.length === max) return null; // more lines than expected: no need to read on
        out.push(t);
      }
      return out.sort();
    };
    const a = sorted(expected, Infinity)!;
    const b = sorted(actual, a.length);
    return b !== null && a.length === b.length && a.every((line, i) => line === b[i]);
  }
  if (comparator.startsWith('float:')) {
    const tolerance = Number(comparator.slice('float:'.length));
    return sameTokens(expected, actual, (x, y) => {
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

function sameTokens(expected: string, actual: string, close: (x: string, y: string) => boolean): boolean {
  const a = tokenReader(expected);
  const b = tokenReader(actual);
  for (;;) {
    const x = a.next();
    const y = b.next();
    if (x === null || y === null) return x === y;
    if (x !== y && !close(x, y)) return false;
  }
}
