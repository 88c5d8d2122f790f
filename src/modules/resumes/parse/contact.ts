/** Name, email, phone, links and location: from the header first, the whole text as a fallback. */
import { findPhoneNumbersInText, getCountries, type CountryCode } from 'libphonenumber-js';
import type { ResumeLinks } from '../types.js';
import type { Line } from './lines.js';

// Each starts only where a run of its characters starts, and has parts no longer and no more than an address has:
// tried from every position of a long unbroken token (a pasted base64 blob, "a.a.a.…"), an unbounded pattern reads
// to the token's end each time.
// Cased letters beyond ASCII are an address's too (zoë.müller@web.de, an IDN domain): read as ASCII, "ller@web.de" was
// taken for the address and "mple.com" of "exämple.com" for a web site. (Uncased letters, Han or Arabic, still end one:
// "邮箱ann@example.com".)
const EMAIL = /(?<![\p{LC}\p{M}\p{N}._%+-])[\p{LC}\p{M}\p{N}._%+-]{1,64}@[\p{LC}\p{M}\p{N}-]{1,63}(?:\.[\p{LC}\p{M}\p{N}-]{1,63}){0,8}\.\p{LC}[\p{LC}\p{M}]{1,62}/u;
const URL_LIKE = /(?<![\p{L}\p{N}.-])(?:https?:\/\/)?(?:www\.)?[a-z0-9-]{1,63}(?:\.[a-z0-9-]{1,63}){0,8}\.[a-z]{2,63}(?:\/[^\s|,;]*)?/giu;
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

/**
 * "0049 30 …", "0044 20 …": the international prefix of most countries is the country code's "+" (read as written,
 * the number was taken for a US one, invalid, and no phone was found). Only where a number starts: the "0096" of
 * "+44 20 7946 0096" is its end.
 */
const countryCodeAsPlus = (text: string) => text.replace(/(?<![\d+][\s().\/-]*)00(?=[1-9])/g, '+');

/**
 * The first valid phone number, in E.164. A number without a country code is read in `country` (the one the
 * resume's location names) when given, and as a US number when it is not valid there or no country is known.
 */
export function findPhone(text: string, country: CountryCode | null = null): string | null {
  const prepared = countryCodeAsPlus(text);
  for (const defaultCountry of country && country !== 'US' ? [country, 'US' as const] : ['US' as const]) {
    for (const found of findPhoneNumbersInText(prepared, { defaultCountry })) {
      if (found.number.isValid()) return found.number.number;
    }
  }
  return null;
}

// Country names in English ("United Kingdom", "Germany") and their codes, with the names resumes also use.
let countryNames: Map<string, CountryCode> | undefined;
function countriesByName(): Map<string, CountryCode> {
  if (countryNames) return countryNames;
  const names = new Intl.DisplayNames(['en'], { type: 'region' });
  countryNames = new Map();
  for (const code of getCountries()) {
    const name = names.of(code);
    if (name) countryNames.set(name.toLowerCase(), code);
  }
  const aliases: [string, CountryCode][] = [
    ['uk', 'GB'], ['u.k.', 'GB'], ['great britain', 'GB'], ['britain', 'GB'], ['england', 'GB'], ['scotland', 'GB'],
    ['wales', 'GB'], ['northern ireland', 'GB'], ['usa', 'US'], ['u.s.a.', 'US'], ['u.s.', 'US'], ['united states of america', 'US'],
    ['uae', 'AE'], ['deutschland', 'DE'], ['holland', 'NL'], ['the netherlands', 'NL'], ['czech republic', 'CZ'],
    ['korea', 'KR'], ['republic of ireland', 'IE'], ['españa', 'ES'], ['italia', 'IT'], ['schweiz', 'CH'], ['suisse', 'CH'],
    ['österreich', 'AT'], ['brasil', 'BR'], ['türkiye', 'TR'], ['turkey', 'TR'],
  ];
  for (const [name, code] of aliases) countryNames.set(name, code);
  return countryNames;
}

/**
 * The country a "City, Region" location names, for reading phone numbers written without a country code: a country
 * ("London, UK", "Berlin, Germany"); a two-letter region is a US state ("Austin, TX") and gives none.
 */
export function countryOfLocation(location: string | null): CountryCode | null {
  if (!location || !location.includes(',')) return null;
  const region = location.slice(location.lastIndexOf(',') + 1).trim().toLowerCase();
  return countriesByName().get(region) ?? null;
}

export function findLinks(text: string): ResumeLinks {
  const links: ResumeLinks = { linkedin: null, github: null, site: null };
  const withoutEmails = text.replace(new RegExp(EMAIL.source, 'gu'), ' ');
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
