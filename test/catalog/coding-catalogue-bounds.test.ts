import { describe, expect, it } from 'vitest';
import { readProblemFolders } from '../../src/modules/coding/catalog-seed.js';

/**
 * Every example and hidden case keeps to the bounds its statement gives: a candidate may rely on a stated bound
 * (a 32-bit period, a tiny weight), so a case outside one fails a correct program. Checked for the problems below,
 * each against its `constraints` and `input_format`; pure data, no sandbox.
 */
type Check = (ok: boolean, what: string) => void;

/** The input's lines (the final newline ends the last one), and an integer reader that fails loudly. */
function lines(input: string): string[] {
  const all = input.split('\n');
  if (all.pop() !== '') throw new Error('the input does not end with a newline');
  return all;
}
const ints = (line: string | undefined): bigint[] => (line ?? '').split(' ').filter((t) => t !== '').map((t) => {
  if (!/^-?\d+$/.test(t)) throw new Error(`not an integer: ${t.slice(0, 20)}`);
  return BigInt(t);
});
const within = (x: bigint, lo: number | bigint, hi: number | bigint) => x >= BigInt(lo) && x <= BigInt(hi);

const VALIDATORS: Record<string, (input: string, check: Check) => void> = {
  'alpine-hut-distances'(input, check) {
    const l = lines(input);
    const [n, q] = ints(l[0]).map(Number) as [number, number];
    check(n >= 1 && n <= 60000 && q >= 1 && q <= 60000, 'n, q');
    check(l.length === n + q, 'line count');
    for (const line of l.slice(1, n)) {
      const [u, v, w] = ints(line);
      check(within(u!, 1, n) && within(v!, 1, n) && u !== v && within(w!, 1, 9), `footpath ${line}`);
    }
    for (const line of l.slice(n)) check(ints(line).every((x) => within(x, 1, n)), `order ${line}`);
  },
  'baggage-belt-heavier-wait'(input, check) {
    const [n, w] = [ints(lines(input)[0])[0]!, ints(lines(input)[1])];
    check(within(n, 1, 300000) && w.length === Number(n) && w.every((x) => within(x, 1, 10000)), 'n, weights');
  },
  'cellar-humidity-swings'(input, check) {
    const l = lines(input);
    const [n, lo, hi] = ints(l[0]);
    const a = ints(l[1]);
    check(within(n!, 1, 200000) && a.length === Number(n) && within(lo!, 0, hi!) && within(hi!, lo!, 100), 'n, L, R');
    check(a.every((x) => within(x, 0, 100)), 'readings');
  },
  'greenhouse-trimmed-mean'(input, check) {
    const l = lines(input);
    const [n, k] = ints(l[0]);
    const r = l[1]!.split(' ');
    check(within(n!, 1, 100000) && k! >= 0n && 2n * k! < n! && r.length === Number(n), 'n, k');
    for (const t of r) check(/^-?\d+(\.\d{1,2})?$/.test(t) && Number(t) >= -50 && Number(t) <= 80, `reading ${t}`);
  },
  'kayak-pairing'(input, check) {
    const l = lines(input);
    const [n, c] = ints(l[0]);
    const w = ints(l[1]);
    check(within(n!, 1, 300000) && within(c!, 1, 1000) && w.length === Number(n), 'n, C');
    check(w.every((x) => within(x, 1, c!)), 'weights');
  },
  'lantern-colour-tally'(input, check) {
    const l = lines(input);
    const n = Number(ints(l[0])[0]);
    check(n >= 1 && n <= 200000 && l.length === n + 1, 'n');
    for (const name of l.slice(1)) check(/^[A-Za-z]{1,12}$/.test(name), `colour ${name.slice(0, 20)}`);
  },
  'library-shelf-anchors'(input, check) {
    const l = lines(input);
    const a = ints(l[1]);
    check(within(ints(l[0])[0]!, 1, 250000) && a.length === Number(ints(l[0])[0]) && a.every((x) => within(x, 1, 1e9)), 'n, a');
  },
  'lighthouse-flash-sync'(input, check) {
    const l = lines(input);
    const [n, t] = ints(l[0]);
    const p = ints(l[1]);
    check(within(n!, 1, 100000) && within(t!, 1, 10n ** 18n) && p.length === Number(n), 'n, T');
    check(p.every((x) => within(x, 1, 1e9)), 'periods');
  },
  'mossy-stepping-stones'(input, check) {
    const l = lines(input);
    const [n, k] = ints(l[0]);
    const m = ints(l[1]);
    check(within(n!, 1, 1e6) && within(k!, 0, n! - 1n) && m.length === Number(k), 'n, k');
    check(new Set(m).size === m.length && m.every((x) => within(x, 1, n! - 1n)), 'mossy stones');
  },
  'night-guard-turntables'(input, check) {
    const l = lines(input);
    const [rows, cols, k] = ints(l[0]);
    const [r, c, d] = l[1]!.split(' ');
    check(within(rows!, 1, 400) && within(cols!, 1, 400) && within(k!, 0, 10n ** 18n) && l.length === Number(rows) + 2, 'R, C, K');
    const hall = l.slice(2);
    check(hall.every((row) => row.length === Number(cols) && /^[.#LR]*$/.test(row)), 'hall');
    check(within(BigInt(r!), 1, rows!) && within(BigInt(c!), 1, cols!) && /^[NESW]$/.test(d ?? ''), 'start');
    check(hall[Number(r) - 1]?.[Number(c) - 1] !== '#', 'the start is not a display case');
  },
  'orchard-valve-downstream'(input, check) {
    const l = lines(input);
    const n = Number(ints(l[0])[0]);
    const p = ints(l[1]);
    check(n >= 1 && n <= 100000 && p.length === n && p.filter((x) => x === 0n).length === 1, 'n, one main valve');
    check(p.every((x, i) => within(x, 0, n) && x !== BigInt(i + 1)), 'upstream valves');
  },
  'raffle-prime-tickets'(input, check) {
    const l = lines(input);
    const q = Number(ints(l[0])[0]);
    check(q >= 1 && q <= 50000 && l.length === q + 1, 'q');
    for (const line of l.slice(1)) { const [a, b] = ints(line); check(within(a!, 1, b!) && within(b!, a!, 1e6), `batch ${line}`); }
  },
  'ridge-beacon-pairs'(input, check) {
    const l = lines(input);
    const h = ints(l[1]);
    check(within(ints(l[0])[0]!, 1, 250000) && h.length === Number(ints(l[0])[0]) && h.every((x) => within(x, 1, 1e9)), 'n, h');
  },
  'stage-changeover-bookings'(input, check) {
    const l = lines(input);
    const [n, k, g] = ints(l[0]);
    check(within(n!, 1, 20000) && within(k!, 1, 50) && within(g!, 0, 1e6) && l.length === Number(n) + 1, 'n, K, g');
    for (const line of l.slice(1)) { const [s, e, f] = ints(line); check(within(s!, 0, e! - 1n) && within(e!, 1, 1e6) && within(f!, 1, 1e6), `request ${line}`); }
  },
  'trail-stretch-totals'(input, check) {
    const l = lines(input);
    const [n, q] = ints(l[0]);
    const a = ints(l[1]);
    check(within(n!, 1, 100000) && within(q!, 1, 100000) && a.length === Number(n) && a.every((x) => within(x, -1000, 1000)), 'n, q, a');
    for (const line of l.slice(2)) { const [x, y] = ints(line); check(within(x!, 1, y!) && within(y!, x!, n!), `section ${line}`); }
  },
  'windowsill-pot-swaps'(input, check) {
    const l = lines(input);
    const n = Number(ints(l[0])[0]);
    const [a, b] = [ints(l[1]), ints(l[2])];
    check(n >= 1 && n <= 200000 && a.length === n && b.length === n && [...a, ...b].every((x) => within(x, 1, 1e9)), 'n, codes');
  },
};

describe('the coding catalogue\'s cases', () => {
  const folders = readProblemFolders();

  it('keep to the bounds each statement gives', () => {
    const failures: string[] = [];
    for (const [slug, validate] of Object.entries(VALIDATORS)) {
      const folder = folders.find((f) => f.problem.slug === slug);
      expect(folder, slug).toBeDefined();
      const all = [...folder!.problem.examples.map((e, i) => ({ name: `example-${i + 1}`, input: e.input })), ...folder!.cases];
      for (const c of all) {
        try {
          validate(c.input, (ok, what) => { if (!ok) failures.push(`${slug}/${c.name}: ${what}`.slice(0, 200)); });
        } catch (error) {
          failures.push(`${slug}/${c.name}: ${(error as Error).message}`);
        }
      }
    }
    expect(failures).toEqual([]);
  });
});
