import type { ParseResult, SectionName, YearMonth } from '../types.js';
import type { Evidence } from './types.js';

const MAX_QUOTE = 200;

export const round2 = (n: number) => Math.round(n * 100) / 100;
export const round1 = (n: number) => Math.round(n * 10) / 10;
export const clamp01 = (n: number) => (Number.isFinite(n) ? Math.min(1, Math.max(0, n)) : 0);
export const ratio = (part: number, whole: number) => (whole > 0 ? part / whole : 0);

/** Lower case, NFKC, punctuation other than `+#./` as spaces, single spaces. */
export const foldText = (text: string) =>
  text.normalize('NFKC').toLowerCase().replace(/[^\p{L}\p{N}+#./]+/gu, ' ').replace(/\s+/g, ' ').trim();

/**
 * Cut `text` to ≤ 200 characters at word boundaries around `focus` (a character index), marking cuts with `…`. Only a
 * window around the focus is read, so quoting many places of one long line costs each the window, not the line.
 */
export function quote(text: string, focus = 0): string {
  const WINDOW = 4 * MAX_QUOTE;
  if (text.length > 2 * WINDOW) {
    const from = Math.max(0, Math.min(focus - WINDOW, text.length - 2 * WINDOW));
    const cut = quote(text.slice(from, from + 2 * WINDOW), focus - from);
    return `${from > 0 && !cut.startsWith('…') ? '…' : ''}${cut}${from + 2 * WINDOW < text.length && !cut.endsWith('…') ? '…' : ''}`;
  }
  const clean = text.replace(/\s+/g, ' ').trim();
  if (clean.length <= MAX_QUOTE) return clean;
  const budget = MAX_QUOTE - 2; // room for a leading and a trailing ellipsis
  let start = Math.max(0, Math.min(focus - Math.floor(budget / 3), clean.length - budget));
  if (start > 0) {
    const nextSpace = clean.indexOf(' ', start);
    start = nextSpace === -1 || nextSpace - start > 30 ? start : nextSpace + 1;
  }
  let end = Math.min(clean.length, start + budget);
  if (end < clean.length) {
    const lastSpace = clean.lastIndexOf(' ', end);
    end = lastSpace > start + 20 ? lastSpace : end;
  }
  return `${start > 0 ? '…' : ''}${clean.slice(start, end).trim()}${end < clean.length ? '…' : ''}`;
}

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * An address anywhere in a line. It starts only where a run of its characters starts, and its parts are no longer than
 * an address's: tried from every position of a long unbroken token (a pasted base64 blob), an unbounded local part read
 * to the token's end each time, and scoring, on the request thread, took minutes on one long line (as parse/contact.ts).
 * Letters beyond ASCII count (zoë.müller@…): read as ASCII, "zoë.mü" was left before the redaction.
 */
const ANY_EMAIL = /(?<![\p{LC}\p{M}\p{N}_.+-])[\p{LC}\p{M}\p{N}_.+-]{1,64}@[\p{LC}\p{M}\p{N}_-]{1,63}(?:\.[\p{LC}\p{M}\p{N}_-]{1,63}){1,8}/gu;

/**
 * Evidence quotes never carry the candidate's name, email or links, so that the score is the same whoever the
 * resume belongs to.
 */
export function contactRedactor(result: ParseResult): (text: string) => string {
  const { name, email, links } = result.parsed;
  // A link is kept with `https://` added when written without one: it is looked for as written, with or without.
  const bare = (url: string) => escapeRegExp(url.trim().replace(/^https?:\/\//i, '').replace(/^www\./i, ''));
  const literal = [name, email].filter((v): v is string => !!v && v.trim().length > 1).map((v) => escapeRegExp(v.trim()))
    .concat([links.linkedin, links.github, links.site].filter((v): v is string => !!v && v.trim().length > 1).map((v) => `(?:https?://)?(?:www\\.)?${bare(v)}`));
  const patterns = literal.map((v) => new RegExp(`(?<![\\p{L}\\p{N}])${v}(?![\\p{L}\\p{N}])`, 'giu'));
  return (text) => {
    let out = text.replace(ANY_EMAIL, '[email]').replace(/\bhttps?:\/\/\S+/gi, '[link]');
    for (const p of patterns) out = out.replace(p, '[redacted]');
    return out;
  };
}

/**
 * Quotes a line as evidence, redacted; `redact` alone for text that is read, not quoted; `redacted` to quote text
 * already redacted (a line scanned for many mentions is redacted once, not once per mention).
 */
export interface Quoter {
  (section: Evidence['section'], text: string, focus?: number): Evidence;
  redact(text: string): string;
  redacted(section: Evidence['section'], text: string, focus?: number): Evidence;
}

export function makeQuoter(result: ParseResult): Quoter {
  const redact = contactRedactor(result);
  const quoter = (section: Evidence['section'], text: string, focus = 0): Evidence => ({ section, text: quote(redact(text), focus) });
  const redacted = (section: Evidence['section'], text: string, focus = 0): Evidence => ({ section, text: quote(text, focus) });
  return Object.assign(quoter, { redact, redacted });
}

/** The sections whose lines may hold evidence: everything but contact details and the untitled top of the page. */
export function evidenceSections(result: ParseResult): { name: SectionName; lines: string[] }[] {
  return result.sections.filter((s, i) => s.name !== 'contact' && !(i === 0 && s.heading === null && s.name === 'other'));
}

/** The first line of `section` containing `needle` (case-insensitive), quoted; else null. */
export function findLine(result: ParseResult, quoter: Quoter, sections: SectionName[], needle: string): Evidence | null {
  const wanted = needle.toLowerCase().trim();
  if (wanted === '') return null;
  for (const s of evidenceSections(result)) {
    if (!sections.includes(s.name)) continue;
    for (const line of s.lines) {
      const at = line.toLowerCase().indexOf(wanted);
      if (at !== -1) return quoter(s.name, line, at);
    }
  }
  return null;
}

export function uniqueEvidence(list: Evidence[], max = 3): Evidence[] {
  const seen = new Set<string>();
  const out: Evidence[] = [];
  for (const e of list) {
    const key = `${e.section}\u0000${e.text}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(e);
    if (out.length === max) break;
  }
  return out;
}

// ---- months ----

/** `YYYY-MM` → months since year 0, or null when unreadable. */
export function monthIndex(ym: YearMonth | null | undefined): number | null {
  const m = ym ? /^(\d{4})-(\d{2})$/.exec(ym) : null;
  if (!m) return null;
  const month = Number(m[2]);
  return month >= 1 && month <= 12 ? Number(m[1]) * 12 + month - 1 : null;
}

export const formatMonth = (index: number) => `${Math.floor(index / 12)}-${String((index % 12) + 1).padStart(2, '0')}`;

export function assertYearMonth(value: string): number {
  const index = monthIndex(value);
  if (index === null) throw new TypeError(`asOf must be a month as YYYY-MM, got ${JSON.stringify(value)}`);
  return index;
}
