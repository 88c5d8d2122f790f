import type { ExperienceEntry, ParseResult } from '../types.js';
import { formatMonth, monthIndex } from './text.js';

/** An experience entry with a readable start, its months as indexes (inclusive), capped at `asOf`. */
export interface DatedRole {
  entry: ExperienceEntry;
  /** Position in `parsed.experience`. */
  position: number;
  start: number;
  end: number;
  /** The end was written before the start. */
  reversed: boolean;
}

export interface Interval {
  start: number;
  end: number;
}

/** Roles with a start month, in resume order; a role held now ends at `asOf`; an open role without "Present" is one month. */
export function datedRoles(result: ParseResult, asOf: number): DatedRole[] {
  const roles: DatedRole[] = [];
  result.parsed.experience.forEach((entry, position) => {
    const start = monthIndex(entry.start);
    if (start === null || start > asOf) return;
    const written = entry.current ? asOf : monthIndex(entry.end) ?? start;
    const reversed = written < start;
    roles.push({ entry, position, start, end: Math.min(asOf, reversed ? start : written), reversed });
  });
  return roles;
}

/** The months covered by any of the intervals, overlaps merged, in time order. */
export function mergeIntervals(intervals: Interval[]): Interval[] {
  const sorted = [...intervals].sort((a, b) => a.start - b.start || a.end - b.end);
  const merged: Interval[] = [];
  for (const { start, end } of sorted) {
    const last = merged[merged.length - 1];
    if (last && start <= last.end + 1) last.end = Math.max(last.end, end);
    else merged.push({ start, end });
  }
  return merged;
}

/** Months covered at least once (inclusive counting: Jan–Mar is 3 months). */
export const coveredMonths = (intervals: Interval[]) => mergeIntervals(intervals).reduce((n, i) => n + i.end - i.start + 1, 0);

export interface Gap {
  /** Last month worked before the gap, first month worked after it. */
  from: string;
  to: string;
  months: number;
}

/** Stretches of more than `minMonths` without any role between two dated roles. */
export function employmentGaps(roles: DatedRole[], minMonths: number): Gap[] {
  const merged = mergeIntervals(roles);
  const gaps: Gap[] = [];
  for (let i = 1; i < merged.length; i++) {
    const months = merged[i].start - merged[i - 1].end - 1;
    if (months > minMonths) gaps.push({ from: formatMonth(merged[i - 1].end), to: formatMonth(merged[i].start), months });
  }
  return gaps;
}

const NOT_FULL_TIME = /\b(part[- ]?time|freelance|freelancer|contract(or)?|consultant|advis[oe]r|volunteer|board|mentor|intern(ship)?|teaching assistant|adjunct|side project|founder|co-?founder|self[- ]employed)\b/i;

export const looksFullTime = (entry: ExperienceEntry) => !NOT_FULL_TIME.test(`${entry.title ?? ''} ${entry.company ?? ''}`);

export interface Overlap {
  a: DatedRole;
  b: DatedRole;
  from: string;
  to: string;
  months: number;
}

/**
 * Pairs of full-time roles sharing more than one month (a one-month handover is normal), the first `limit` of them in
 * order of start: a resume of a thousand concurrent roles has half a million pairs, and a few already say it all.
 */
export function fullTimeOverlaps(roles: DatedRole[], limit: number): Overlap[] {
  const fullTime = roles.filter((r) => !r.reversed && looksFullTime(r.entry)).sort((x, y) => x.start - y.start || x.position - y.position);
  const overlaps: Overlap[] = [];
  for (let i = 0; i < fullTime.length; i++) {
    const a = fullTime[i];
    // Sorted by start: once a role starts after `a` ends, so do all that follow.
    for (let j = i + 1; j < fullTime.length && fullTime[j].start < a.end; j++) {
      const b = fullTime[j];
      const from = b.start;
      const to = Math.min(a.end, b.end);
      if (to - from + 1 > 1) overlaps.push({ a, b, from: formatMonth(from), to: formatMonth(to), months: to - from + 1 });
      if (overlaps.length === limit) return overlaps;
    }
  }
  return overlaps;
}

/** `Title (2019-03 – 2021-06)` with the dates as parsed, for timeline evidence. */
export function roleWithDates(role: DatedRole): string {
  const { entry } = role;
  const end = entry.current ? 'present' : entry.end ?? '?';
  const label = [entry.title, entry.company].filter(Boolean).join(', ') || 'Untitled role';
  return `${label} (${entry.start} – ${end})`;
}
