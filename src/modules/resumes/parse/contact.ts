/** Name, email, phone, links and location: from the header first, the whole text as a fallback. */
import { findPhoneNumbersInText } from 'libphonenumber-js';
import type { ResumeLinks } from '../types.js';
import type { Line } from './lines.js';

// Each starts only where a run of its characters starts, and has parts no longer and no more than an address has:
// tried from every position of a long unbroken token (a pasted base64 blob, "a.a.a.…"), an unbounded pattern reads
// to the token's end each time.
const EMAIL = /(?<![A-Za-z0-9._%+-])[A-Za-z0-9._%+-]{1,64}@[A-Za-z0-9-]{1,63}(?:\.[A-Za-z0-9-]{1,63}){0,8}\.[A-Za-z]{2,63}/;
const URL_LIKE = /(?<![a-z0-9.-])(?:https?:\/\/)?(?:www\.)?[a-z0-9-]{1,63}(?:\.[a-z0-9-]{1,63}){0,8}\.[a-z]{2,63}(?:\/[^\s|,;]*)?/gi;
// Scripts without capitals (Arabic, Hebrew, Devanagari, Han, Hangul, kana…): a word of their letters, with their
// vowel signs and the middle dots that part katakana names, stands where a capitalised word would.
const NAME_WORD = /^(?:\p{Lu}[\p{L}'’.-]*|\p{Lu}\.|(?:van|von|de|da|del|der|di|la|le|bin|al|dos|du|ter)|\p{Lu}+|\p{Lo}[\p{Lo}\p{Lm}\p{M}'’.·・-]*)$/u;
const NOT_A_NAME = /resume|curriculum|vitae|\bcv\b|profile|summary|experience|engineer|developer|manager|analyst|designer|scientist|contact/i;

export function looksLikeName(text: string): boolean {
  const words = text.trim().split(/\s+/);
  if (words.length < 2 || words.length > 5 || text.length > 60) return false;
  if (/[\d@/|:,;()]/.test(text) || NOT_A_NAME.test(text)) return false;
  return words.every((w) => NAME_WORD.test(w));
}

/** The name: the largest name-like line near the top of the first page (ties go to the earlier line). */
export function findNameLine(lines: Line[]): Line | null {
  let best: Line | null = null;
  const firstPage = lines.filter((l) => l.page === 1).slice(0, 40);
  for (const line of firstPage) {
    const text = line.text.replace(/\t.*$/, '').trim();
    if (!looksLikeName(text)) continue;
    const weight = line.size + (line.heading ? 4 : 0) + (line.bold ? 1 : 0);
    const bestWeight = best ? best.size + (best.heading ? 4 : 0) + (best.bold ? 1 : 0) : -1;
    if (weight > bestWeight) best = line;
  }
  return best;
}

export function findEmail(text: string): string | null {
  return EMAIL.exec(text)?.[0].toLowerCase() ?? null;
}

/** The first valid phone number, in E.164; numbers without a country code are read as US numbers. */
export function findPhone(text: string): string | null {
  for (const found of findPhoneNumbersInText(text, { defaultCountry: 'US' })) {
    if (found.number.isValid()) return found.number.number;
  }
  return null;
}

export function findLinks(text: string): ResumeLinks {
  const links: ResumeLinks = { linkedin: null, github: null, site: null };
  const withoutEmails = text.replace(new RegExp(EMAIL.source, 'g'), ' ');
  for (const match of withoutEmails.matchAll(URL_LIKE)) {
    const raw = match[0].replace(/[.)]+$/, '');
    const host = raw.replace(/^https?:\/\//i, '').replace(/^www\./i, '').toLowerCase();
    const url = /^https?:\/\//i.test(raw) ? raw : `https://${raw.replace(/^www\./i, 'www.')}`;
    if (/^linkedin\.com\//.test(host)) links.linkedin ??= url;
    else if (/^github\.com\//.test(host)) links.github ??= url;
    else if (/\.(com|org|net|io|dev|me|app|co|ai|tech|xyz|site|page|info|[a-z]{2})(\/|$)/.test(host) && !/\.(js|ts|py|net)$/.test(host) && raw.includes('.') && (raw.includes('/') || /^www\./i.test(raw) || /^https?:/i.test(raw) || /\.(dev|io|me|site|page|com)$/.test(host))) {
      links.site ??= url;
    }
  }
  return links;
}

const LOCATION = /^(?:\p{Lu}[\p{L}.'’-]*(?:\s+\p{Lu}?[\p{L}.'’-]+){0,3}),\s*(?:\p{Lu}{2}|\p{Lu}[\p{L}.'’-]+(?:\s+\p{Lu}[\p{L}.'’-]+){0,2})$/u;

export function isLocation(piece: string): boolean {
  const text = piece.trim();
  return /^remote$/i.test(text) || (LOCATION.test(text) && !/@|\d/.test(text));
}

/** A "City, Region" (or "Remote") piece of a header line. */
export function findLocation(lines: Line[]): string | null {
  for (const line of lines) {
    for (const piece of line.text.split(/\s*[|•·\t]\s*|\s{3,}/)) {
      const clean = piece.replace(/^(?:location|address|based in)\s*:?\s*/i, '').trim();
      if (isLocation(clean)) return clean;
    }
  }
  return null;
}
