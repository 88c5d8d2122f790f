import type { YearMonth } from '../types.js';

/** A date range found in a line: where it sits, and its ends as `YYYY-MM` (end null and `current` for "Present"). */
export interface DateRange {
  start: YearMonth | null;
  end: YearMonth | null;
  current: boolean;
  /** A bound was a year alone (read as January). */
  yearOnly: boolean;
  /**
   * The range's written end was a year alone ("2015 – 2018", or a lone "2019", which starts and ends there); `end` is
   * then that year's January, and a role's end is then read as the whole year (`readExperience`).
   */
  endYearOnly: boolean;
  /** One date written alone, no range ("2019", "Summer 2019"): a graduation's date, or a role's whole span. */
  single: boolean;
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
// A season, quarter or half of a year ("Summer 2019", "Q3 2019", "H2 2020"): its first and last months. The seasons
// are the northern hemisphere's meteorological ones, three months each, so that they tile the year: winter is
// December to February and spans the turn of the year. "Winter 2021" is the winter that ends in 2021 (its January and
// February are 2021's): December 2020 – February 2021, a first month greater than the last being the year before's.
const PERIODS: Record<string, [number, number]> = {
  spring: [3, 5], summer: [6, 8], fall: [9, 11], autumn: [9, 11], winter: [12, 2],
  q1: [1, 3], q2: [4, 6], q3: [7, 9], q4: [10, 12], h1: [1, 6], h2: [7, 12],
};
const PERIOD = '(?:spring|summer|fall|autumn|winter|q[1-4]|h[12])';
// A winter written with both its years, "Winter 2020/21", "Winter 2020-21", "Winter 2020/2021", "Winter 2020-2021": the
// one that ends in the second. Only written tight: "Winter 2019 - 2021" stays a range from one winter to a year, and so
// does "Winter 2019-2021", whose years are not one winter's (`findDateRanges` reads it again without this).
const WINTER_ACROSS = `winter,?\\s*${YEAR}[/–-](?:\\d{2}(?!\\d)|${YEAR})`;
// Tight with a dash and two full years: a winter if the years follow each other, else a range.
const WINTER_OR_RANGE = /^winter,?\s*\d{4}[–-]\d{4}$/i;
// One date: "Jan 2020", "Sept. 2019", "January, 2020", "Jan '20", "01/2020", "1/2020", "2020-01", "2020/01", "2020.01",
// "2020-01-15", "15.01.2020", "01/15/2020", "2020". A two-digit year needs its apostrophe ("May 15" is no date).
const DAY_MONTH_YEAR = `\\d{1,2}\\s*[/.]\\s*\\d{1,2}\\s*[/.]\\s*${YEAR}`;
const YEAR_MONTH = `${YEAR}(?:\\s*[/-]\\s*|\\.)(?:0[1-9]|1[0-2])(?:[/.-](?:0[1-9]|[12]\\d|3[01]))?(?![\\d])`;
const oneDate = (winterAcross: boolean) => `(?:${MONTH_NAME},?\\s*(?:'?${YEAR}|['’]\\d{2}(?!\\d))|${winterAcross ? `${WINTER_ACROSS}|` : ''}${PERIOD},?\\s*${YEAR}|${DAY_MONTH_YEAR}|(?:0?[1-9]|1[0-2])\\s*[/.-]\\s*${YEAR}|${YEAR_MONTH}|${YEAR})`;
const ONE_DATE = oneDate(true);
const PRESENT = '(?:present|current(?:ly)?|now|today|(?:to|till|til|until|up\\s+to)\\s+(?:date|now|present|today)|date|ongoing)';
const SEPARATOR = '\\s*(?:–|—|-|‒|―|to|until|till|through|thru|~|→)\\s*';
const range = (date: string) => `(?<![\\w/.-])(${date})(?:${SEPARATOR}(${date}|${PRESENT}))?(?![\\w/])`;
const RANGE = new RegExp(range(ONE_DATE), 'gi');
// The same, at one position, with no winter across two years: "Winter 2019-2021" as a winter and a year.
const RANGE_NOT_ACROSS = new RegExp(range(oneDate(false)), 'iy');
const SINCE = new RegExp(`\\b(?:since|from)\\s+(${ONE_DATE})(?![\\w/])`, 'gi');

const pad = (n: number) => String(n).padStart(2, '0');

/**
 * One date as written → `YYYY-MM` and whether the month was missing; a season, quarter or half of a year is its first
 * month, with its last as `last` (the month a range ending there ends).
 */
export function readDate(raw: string): { value: YearMonth; yearOnly: boolean; last?: YearMonth } | null {
  const text = raw.trim().toLowerCase().replace(/['’]/g, '').replace(/\s+/g, ' ');
  let m = /^winter,?\s*(\d{4})[/–-](\d{2}|\d{4})$/.exec(text);
  if (m) {
    // "Winter 2020/21": the winter ending in the second year, which must follow the first.
    const [first, second] = [Number(m[1]), Number(m[2].length === 2 ? m[1].slice(0, 2) + m[2] : m[2])];
    return second === first + 1 ? { value: `${first}-12`, yearOnly: false, last: `${second}-02` } : null;
  }
  m = /^([a-z]+\d?),?\s*(\d{4})$/.exec(text);
  const period = m ? PERIODS[m[1]] : undefined;
  if (m && period) {
    const year = Number(m[2]);
    return { value: `${period[0] > period[1] ? year - 1 : year}-${pad(period[0])}`, yearOnly: false, last: `${year}-${pad(period[1])}` };
  }
  m = /^([a-z]+)\.?,?\s*(\d{4}|\d{2})$/.exec(text);
  if (m) {
    const month = MONTHS[m[1]];
    // A two-digit year falls in the span a four-digit one may: 50–99 are the 1900s, 00–49 the 2000s.
    const year = m[2].length === 2 ? (Number(m[2]) >= 50 ? 1900 : 2000) + Number(m[2]) : Number(m[2]);
    return month ? { value: `${year}-${pad(month)}`, yearOnly: false } : null;
  }
  // Day, month and year: a part over 12 is the day; otherwise "/" is read month first (01/15/2020), "." day first.
  m = /^(\d{1,2}) ?([/.]) ?(\d{1,2}) ?[/.] ?(\d{4})$/.exec(text);
  if (m) {
    const [a, b] = [Number(m[1]), Number(m[3])];
    const month = a > 12 ? b : b > 12 ? a : m[2] === '/' ? a : b;
    return month >= 1 && month <= 12 ? { value: `${m[4]}-${pad(month)}`, yearOnly: false } : null;
  }
  m = /^(\d{1,2})\s*[/.-]\s*(\d{4})$/.exec(text);
  if (m) return { value: `${m[2]}-${pad(Number(m[1]))}`, yearOnly: false };
  m = /^(\d{4})\s*[/.-]\s*(\d{2})(?:[/.-]\d{2})?$/.exec(text);
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
  for (const match of line.matchAll(RANGE)) {
    let m: RegExpExecArray | null = match;
    let start = readDate(m[1]);
    if (!start && WINTER_OR_RANGE.test(m[1])) {
      RANGE_NOT_ACROSS.lastIndex = match.index;
      m = RANGE_NOT_ACROSS.exec(line);
      start = m && readDate(m[1]);
    }
    if (!m || !start) continue;
    const endRaw = m[2];
    const current = endRaw !== undefined && new RegExp(`^${PRESENT}$`, 'i').test(endRaw.trim());
    const end = endRaw === undefined ? start : current ? null : readDate(endRaw);
    if (endRaw !== undefined && !current && !end) continue;
    found.push({
      start: start.value, end: end ? end.last ?? end.value : null, current, yearOnly: start.yearOnly || Boolean(end?.yearOnly),
      endYearOnly: Boolean(end?.yearOnly), single: endRaw === undefined,
      index: m.index, length: m[0].length,
    });
  }
  if (found.length === 0) {
    for (const m of line.matchAll(SINCE)) {
      const start = readDate(m[1]);
      if (start) found.push({ start: start.value, end: null, current: true, yearOnly: start.yearOnly, endYearOnly: false, single: false, index: m.index, length: m[0].length });
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
