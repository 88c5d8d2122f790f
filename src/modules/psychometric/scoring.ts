import type { Instrument, Item, NormGroup } from './instrument.js';

/**
 * Scoring of a completed answer sheet: raw sums (minus-keyed items reversed, 6 − answer), mean item scores, and,
 * against a norm group, T = 50 + 10·(raw − mean)/SD, percentile = 100·Φ((T − 50)/10), label low (T < 45),
 * average (45–55) or high (T > 55). Pure: the same sheet always scores the same.
 */

export type Label = 'low' | 'average' | 'high';

export interface ScaleScore {
  key: string;
  name: string;
  raw: number;
  mean: number;
  items: number;
  t_score: number | null;
  percentile: number | null;
  label: Label | null;
}

export interface DomainScore extends ScaleScore {
  facets: ScaleScore[];
}

/** The item's score after keying: minus-keyed items are reversed. */
export const keyed = (item: Item, answer: number) => (item.keyed === 'minus' ? 6 - answer : answer);

/** Standard normal CDF (Abramowitz & Stegun 7.1.26 through erf; absolute error below 1.5e-7). */
export function normalCdf(z: number): number {
  const x = Math.abs(z) / Math.SQRT2;
  const t = 1 / (1 + 0.3275911 * x);
  const erf = 1 - t * (0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429)))) * Math.exp(-x * x);
  return z >= 0 ? (1 + erf) / 2 : (1 - erf) / 2;
}

export function labelOf(t: number): Label {
  return t < 45 ? 'low' : t > 55 ? 'high' : 'average';
}

const round = (n: number, places: number) => Math.round(n * 10 ** places) / 10 ** places;

/** T, percentile and label of a raw score against [mean, SD]; nulls without a norm. */
export function normed(raw: number, ms: [number, number] | undefined): Pick<ScaleScore, 't_score' | 'percentile' | 'label'> {
  if (!ms || !(ms[1] > 0)) return { t_score: null, percentile: null, label: null };
  const t = 50 + (10 * (raw - ms[0])) / ms[1];
  const shown = round(t, 1);
  // The label follows the T shown: a T of 44.96 shows as 45.0, which is average, never "low".
  // Percentiles stay within 0.1–99.9: a far tail rounds to 0.0 or 100.0, which no norm group can vouch for.
  const percentile = Math.min(99.9, Math.max(0.1, round(100 * normalCdf((t - 50) / 10), 1)));
  return { t_score: shown, percentile, label: labelOf(shown) };
}

/** Raw sums per scale key (domains and facets) of a complete sheet. */
export function rawScores(instrument: Instrument, answers: Record<string, number>): Record<string, number> {
  // No prototype: a scale keyed `constructor` (an organisation's own instrument may use one) sums from 0.
  const raw = Object.create(null) as Record<string, number>;
  for (const item of instrument.items) {
    const answer = answers[item.id];
    if (answer === undefined) throw new Error(`item ${item.id} is unanswered`);
    for (const key of item.facet ? [item.domain, item.facet] : [item.domain]) raw[key] = (raw[key] ?? 0) + keyed(item, answer);
  }
  return raw;
}

export function scoreSheet(instrument: Instrument, answers: Record<string, number>, norms: Pick<NormGroup, 'mean_sd'> | null): DomainScore[] {
  const raw = rawScores(instrument, answers);
  const count = (key: string) => instrument.items.filter((i) => i.domain === key || i.facet === key).length;
  const scale = (key: string, name: string): ScaleScore => {
    const items = count(key);
    return { key, name, raw: raw[key]!, mean: round(raw[key]! / items, 2), items, ...normed(raw[key]!, norms?.mean_sd[key]) };
  };
  return instrument.scales.map((s) => ({ ...scale(s.key, s.name), facets: s.facets.map((f) => scale(f.key, f.name)) }));
}

/** The least spread (raw points) local norms must show on a scale to place scores on it. */
export const LOCAL_SD_MIN = 1;

/**
 * Mean and SD (sample, n − 1) of each scale over many sheets' raw scores: an organisation's local norms. A scale on
 * which every sheet scored the same has no spread to place a score in, so it has none.
 */
export function localNorms(sheets: Array<Record<string, number>>): Record<string, [number, number]> {
  const keys = new Set(sheets.flatMap((s) => Object.keys(s)));
  // No prototype: a scale keyed `constructor` left unplaced must read as unplaced, not as Object.
  const out = Object.create(null) as Record<string, [number, number]>;
  for (const key of keys) {
    const values = sheets.map((s) => s[key]).filter((v): v is number => typeof v === 'number');
    const mean = values.reduce((a, b) => a + b, 0) / values.length;
    const variance = values.reduce((a, v) => a + (v - mean) ** 2, 0) / Math.max(1, values.length - 1);
    const sd = round(Math.sqrt(variance), 4);
    // Under one answer step of spread (49 identical sheets and one a point apart: SD 0.14), one point would move a T
    // by seventy: such a scale is not placed, as one with no spread is not.
    if (sd >= LOCAL_SD_MIN) out[key] = [round(mean, 4), sd];
  }
  return out;
}

export interface QualityIndicator {
  value: number;
  threshold: number;
  flagged: boolean;
  description: string;
}

/** A run this long of one answer suggests answering without reading: a sixth of the items, and at least six. */
export const longRunThreshold = (itemCount: number) => Math.max(6, Math.ceil(itemCount / 6));
export const SECONDS_PER_ITEM_MIN = 2;
/**
 * Mean |plus-keyed mean + minus-keyed mean − 6| over the groups keyed both ways (each facet, and each domain's items on
 * no facet); 0 is consistent, 4 contradicts fully.
 */
export const INCONSISTENCY_THRESHOLD = 1.5;

/**
 * Response-quality indicators: the longest run of identical answers in the order shown, the time per item, and how
 * far the answers to opposite-keyed items of the same scale disagree (agreeing with both "worry about things" and
 * "am relaxed most of the time"). Each is reported with its threshold; none decides anything by itself.
 */
export function qualityIndicators(instrument: Instrument, order: string[], answers: Record<string, number>, seconds: number | null) {
  let longest = 0;
  let run = 0;
  let previous: number | undefined;
  for (const id of order) {
    const answer = answers[id];
    run = answer !== undefined && answer === previous ? run + 1 : 1;
    previous = answer;
    longest = Math.max(longest, run);
  }
  const runThreshold = longRunThreshold(order.length);

  // Opposite-keyed items are compared within the narrowest scale they share: each facet's items, and a domain's
  // items on no facet (all of a domain without facets) as a group of their own, never pooled with its facets' items.
  const gaps: number[] = [];
  const scales = instrument.scales.flatMap((s) => [...s.facets.map((f) => f.key), s.key]);
  for (const key of scales) {
    const items = instrument.items.filter((i) => (i.facet ?? i.domain) === key);
    const mean = (keyedAs: 'plus' | 'minus') => {
      const values = items.filter((i) => i.keyed === keyedAs).map((i) => answers[i.id]!);
      return values.length ? values.reduce((a, b) => a + b, 0) / values.length : null;
    };
    const plus = mean('plus');
    const minus = mean('minus');
    if (plus !== null && minus !== null) gaps.push(Math.abs(plus + minus - 6));
  }
  // Both flagged on the exact value and rounded only for display: 1.504 must not pass as 1.5, nor 1.96 s as 2.0.
  const exactInconsistency = gaps.length ? gaps.reduce((a, b) => a + b, 0) / gaps.length : 0;
  const exactPerItem = seconds === null ? null : seconds / order.length;
  const perItem = exactPerItem === null ? null : round(exactPerItem, 1);

  return {
    longest_identical_run: {
      value: longest, threshold: runThreshold, flagged: longest >= runThreshold,
      description: `The longest run of the same answer to consecutive items; flagged at ${runThreshold} or more.`,
    } satisfies QualityIndicator,
    seconds_per_item: {
      value: perItem ?? 0, threshold: SECONDS_PER_ITEM_MIN, flagged: exactPerItem !== null && exactPerItem < SECONDS_PER_ITEM_MIN,
      description: `Time from start to submit per item, in seconds; flagged under ${SECONDS_PER_ITEM_MIN} s (too fast to read each item).`,
    } satisfies QualityIndicator,
    inconsistency: {
      value: round(exactInconsistency, 2), threshold: INCONSISTENCY_THRESHOLD, flagged: exactInconsistency > INCONSISTENCY_THRESHOLD,
      description: `Mean disagreement between opposite-keyed items of the same scale (0 consistent, 4 contradictory); flagged above ${INCONSISTENCY_THRESHOLD}.`,
    } satisfies QualityIndicator,
  };
}
