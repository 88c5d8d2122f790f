import type { YearMonth } from '../types.js';

/** A date range found in a line: where it sits, and its ends as `YYYY-MM` (end null and `current` for "Present"). */
export interface DateRange {
  start: YearMonth | null;
  end: YearMonth | null;
  current: boolean;
  /** A bound was a year alone (read as January). */
  yearOnly: boolean;
  index: number;
  length: number;
}

const MONTHS: Record<string, number> = {
  jan: 1, january: 1, feb: 2, february: 2, mar: 3, march: 3, apr: 4, april: 4, may: 5, jun: 6, june: 6,
  jul: 7, july: 7, aug: 8, august: 8, sep: 9, sept: 9, september: 9, oct: 10, october: 10, nov: 11, november: 11,
  dec: 12, december: 12,
};

const MONTH_NAME = '(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sept?(?:ember)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\\.?';
const YEAR = '(?:19[5-9]\\d|20[0-4]\\d)';
// One date: "Jan 2020", "Sept. 2019", "January, 2020", "01/2020", "1/2020", "2020-01", "2020/01", "2020".
const ONE_DATE = `(?:${MONTH_NAME},?\\s*'?${YEAR}|(?:0?[1-9]|1[0-2])\\s*[/.-]\\s*${YEAR}|${YEAR}\\s*[/-]\\s*(?:0[1-9]|1[0-2])(?![\\d])|${YEAR})`;
const PRESENT = '(?:present|current(?:ly)?|now|today|to date|ongoing)';
const SEPARATOR = '\\s*(?:–|—|-|‒|―|to|until|till|through|thru|~|→)\\s*';
const RANGE = new RegExp(`(?<![\\w/.-])(${ONE_DATE})(?:${SEPARATOR}(${ONE_DATE}|${PRESENT}))?(?![\\w/])`, 'gi');
const SINCE = new RegExp(`\\b(?:since|from)\\s+(${ONE_DATE})(?![\\w/])`, 'gi');

const pad = (n: number) => String(n).padStart(2, '0');

/** One date as written → `YYYY-MM` and whether the month was missing. */
export function readDate(raw: string): { value: YearMonth; yearOnly: boolean } | null {
  const text = raw.trim().toLowerCase().replace(/'/g, '');
  let m = /^([a-z]+)\.?,?\s*(\d{4})$/.exec(text);
  if (m) {
    const month = MONTHS[m[1]];
    return month ? { value: `${m[2]}-${pad(month)}`, yearOnly: false } : null;
  }
  m = /^(\d{1,2})\s*[/.-]\s*(\d{4})$/.exec(text);
  if (m) return { value: `${m[2]}-${pad(Number(m[1]))}`, yearOnly: false };
  m = /^(\d{4})\s*[/-]\s*(\d{2})$/.exec(text);
  if (m) return { value: `${m[1]}-${m[2]}`, yearOnly: false };
  m = /^(\d{4})$/.exec(text);
  if (m) return { value: `${m[1]}-01`, yearOnly: true };
  return null;
}

/**
 * Every date range in a line, in order. A lone date counts as a range that starts and ends there (a graduation),
 * unless it is part of something else (a phone number, a long number).
 */
export function findDateRanges(line: string): DateRange[] {
  const found: DateRange[] = [];
  for (const m of line.matchAll(RANGE)) {
    const start = readDate(m[1]);
    if (!start) continue;
    const endRaw = m[2];
    const current = endRaw !== undefined && new RegExp(`^${PRESENT}$`, 'i').test(endRaw.trim());
    const end = endRaw === undefined ? start : current ? null : readDate(endRaw);
    if (endRaw !== undefined && !current && !end) continue;
    found.push({
      start: start.value, end: end ? end.value : null, current, yearOnly: start.yearOnly || Boolean(end?.yearOnly),
      index: m.index, length: m[0].length,
    });
  }
  if (found.length === 0) {
    for (const m of line.matchAll(SINCE)) {
      const start = readDate(m[1]);
      if (start) found.push({ start: start.value, end: null, current: true, yearOnly: start.yearOnly, index: m.index, length: m[0].length });
    }
  }
  return found;
}

/** Months between two `YYYY-MM` values, counting both ends' months (Jan–Jan is 1). */
export function monthsBetween(start: YearMonth, end: YearMonth): number {
  const [ys, ms] = start.split('-').map(Number);
  const [ye, me] = end.split('-').map(Number);
  return (ye - ys) * 12 + (me - ms) + 1;
}

export function monthIndex(value: YearMonth): number {
  const [y, m] = value.split('-').map(Number);
  return y * 12 + (m - 1);
}

/** Months covered by the union of the intervals (overlapping roles are not counted twice). */
export function coveredMonths(intervals: { start: YearMonth; end: YearMonth }[]): number {
  const spans = intervals
    .map((i) => [monthIndex(i.start), monthIndex(i.end)] as const)
    .filter(([s, e]) => e >= s)
    .sort((a, b) => a[0] - b[0]);
  let total = 0;
  let curStart = -1;
  let curEnd = -2;
  for (const [s, e] of spans) {
    if (s > curEnd + 1) {
      if (curEnd >= curStart && curStart >= 0) total += curEnd - curStart + 1;
      curStart = s;
      curEnd = e;
    } else curEnd = Math.max(curEnd, e);
  }
  if (curStart >= 0) total += curEnd - curStart + 1;
  return total;
}
