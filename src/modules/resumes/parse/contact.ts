/** Name, email, phone, links and location: from the header first, the whole text as a fallback. */
import { findPhoneNumbersInText, getCountries, isSupportedCountry, type CountryCode } from 'libphonenumber-js';
import { skillTaxonomy } from '../skills.js';
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
 * resume's header names) when given, and as a US number when it is not valid there or no country is known. `hint`,
 * a country only an address suggests (`countryOfAddresses`), comes after the US: a number that is a valid North
 * American one stays one, and only a number that is not (`030 1234567`) is read in the hinted country.
 */
export function findPhone(text: string, country: CountryCode | null = null, hint: CountryCode | null = null): string | null {
  const prepared = countryCodeAsPlus(text);
  const order: CountryCode[] = country && country !== 'US' ? [country, 'US'] : hint && hint !== 'US' && !country ? ['US', hint] : ['US'];
  for (const defaultCountry of order) {
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

// Large cities whose name is no well-known American or other country's city too (no London-Ontario-style doubt worth
// a wrong country: a number not valid there is still read as a US one). Lower case.
const CITIES: Record<string, CountryCode> = {
  london: 'GB', edinburgh: 'GB', glasgow: 'GB', leeds: 'GB', bristol: 'GB', liverpool: 'GB', belfast: 'GB', cardiff: 'GB',
  berlin: 'DE', munich: 'DE', münchen: 'DE', hamburg: 'DE', frankfurt: 'DE', cologne: 'DE', köln: 'DE', stuttgart: 'DE', düsseldorf: 'DE',
  paris: 'FR', lyon: 'FR', marseille: 'FR', toulouse: 'FR', madrid: 'ES', barcelona: 'ES', valencia: 'ES', lisbon: 'PT', porto: 'PT',
  rome: 'IT', milan: 'IT', turin: 'IT', amsterdam: 'NL', rotterdam: 'NL', utrecht: 'NL', brussels: 'BE', antwerp: 'BE',
  zurich: 'CH', zürich: 'CH', geneva: 'CH', vienna: 'AT', wien: 'AT', stockholm: 'SE', gothenburg: 'SE', oslo: 'NO',
  copenhagen: 'DK', helsinki: 'FI', warsaw: 'PL', kraków: 'PL', krakow: 'PL', wrocław: 'PL', prague: 'CZ', budapest: 'HU',
  bucharest: 'RO', sofia: 'BG', athens: 'GR', istanbul: 'TR', 'tel aviv': 'IL', dubai: 'AE', 'abu dhabi': 'AE',
  mumbai: 'IN', bangalore: 'IN', bengaluru: 'IN', 'new delhi': 'IN', hyderabad: 'IN', chennai: 'IN', pune: 'IN',
  singapore: 'SG', 'hong kong': 'HK', tokyo: 'JP', osaka: 'JP', seoul: 'KR', beijing: 'CN', shanghai: 'CN', shenzhen: 'CN',
  sydney: 'AU', brisbane: 'AU', auckland: 'NZ', wellington: 'NZ', toronto: 'CA', vancouver: 'CA', montreal: 'CA',
  'são paulo': 'BR', 'sao paulo': 'BR', 'rio de janeiro': 'BR', 'mexico city': 'MX', 'buenos aires': 'AR', bogotá: 'CO', bogota: 'CO',
  'cape town': 'ZA', johannesburg: 'ZA', lagos: 'NG', nairobi: 'KE', cairo: 'EG',
};

// A US state or Canadian province written out ends a North American location: "London, Ontario", "Paris, Texas".
const NORTH_AMERICAN_REGION = new RegExp(`,\\s*(?:${[
  'Alabama', 'Alaska', 'Arizona', 'Arkansas', 'California', 'Colorado', 'Connecticut', 'Delaware', 'Florida', 'Georgia', 'Hawaii',
  'Idaho', 'Illinois', 'Indiana', 'Iowa', 'Kansas', 'Kentucky', 'Louisiana', 'Maine', 'Maryland', 'Massachusetts', 'Michigan',
  'Minnesota', 'Mississippi', 'Missouri', 'Montana', 'Nebraska', 'Nevada', 'New Hampshire', 'New Jersey', 'New Mexico', 'New York',
  'North Carolina', 'North Dakota', 'Ohio', 'Oklahoma', 'Oregon', 'Pennsylvania', 'Rhode Island', 'South Carolina', 'South Dakota',
  'Tennessee', 'Texas', 'Utah', 'Vermont', 'Virginia', 'Washington', 'West Virginia', 'Wisconsin', 'Wyoming', 'District of Columbia',
  'Ontario', 'Quebec', 'Québec', 'British Columbia', 'Alberta', 'Manitoba', 'Saskatchewan', 'Nova Scotia', 'New Brunswick',
  'Newfoundland and Labrador', 'Prince Edward Island',
].join('|')})$`, 'i');
// Country names that are also a US state or a given name, and say nothing alone.
const NOT_ALONE = new Set(['georgia', 'jordan', 'chad', 'jersey', 'india', 'israel', 'china']);
// A place written as capitalised words or a postcode, comma by comma: "Munich, Bavaria, Germany", "London NW1 6XE".
const PLACE_PART = /^(?:[\p{Lu}\d][\p{L}\d.'’-]*)(?:\s+[\p{Lu}\d][\p{L}\d.'’-]*)*$/u;
const PIECES = /\s*[|•·\t]\s*|\s{3,}/;
/** The header lines' pieces (split at separators), each without a "Location:" or "Based in" label. */
const headerPieces = (lines: Line[]): string[] =>
  lines.flatMap((line) => line.text.split(PIECES).map((piece) => piece.replace(/^(?:location|address|based in)\s*:?\s*/i, '').trim()));

/**
 * The country for reading phone numbers written without a country code, from the header: the country of its
 * "City, Country" location; else a piece of a header line that is a place ending in a country ("Germany",
 * "Munich, Bavaria, Germany", an address ending "…, United Kingdom"); else a large city ("London", "Munich,
 * Bavaria") written alone or as the location's city. A US state or Canadian province as the location's region
 * ("Paris, TX", "London, Ontario") is North America: the US (Canada's numbers are read alike, +1).
 */
export function countryOfHeader(lines: Line[], location: string | null): CountryCode | null {
  const fromLocation = countryOfLocation(location);
  if (fromLocation) return fromLocation;
  if (location && (/,\s*\p{Lu}{2}$/u.test(location) || NORTH_AMERICAN_REGION.test(location))) return 'US';
  const names = countriesByName();
  const places: string[][] = [];
  for (const clean of headerPieces(lines)) {
    if (!clean || clean.length > 80 || /@/.test(clean)) continue;
    const parts = clean.split(/\s*,\s*/);
    if (parts.length > 4 || !parts.every((p) => PLACE_PART.test(p))) continue;
    places.push(parts.map((p) => p.toLowerCase()));
  }
  for (const parts of places) {
    const country = names.get(parts[parts.length - 1]);
    if (country && (parts.length > 1 || !NOT_ALONE.has(parts[0]))) return country;
  }
  const city = location?.split(',')[0].trim().toLowerCase();
  if (city && Object.hasOwn(CITIES, city)) return CITIES[city];
  for (const parts of places) if (parts.length <= 2 && Object.hasOwn(CITIES, parts[0])) return CITIES[parts[0]];
  return null;
}

// Country-code domains sold as generic ones (a start-up's .io, .co, .ai, .me, .tv…): they say nothing of a country.
const GENERIC_COUNTRY_DOMAINS = new Set(['ac', 'ai', 'am', 'cc', 'cf', 'co', 'fm', 'ga', 'gg', 'gq', 'io', 'la', 'ly', 'me', 'ml', 'nu', 'sh', 'so', 'tk', 'to', 'tv', 'vc', 'ws']);
const countryOfCode = (code: string): CountryCode | null => {
  const upper = code.toUpperCase() === 'UK' ? 'GB' : code.toUpperCase();
  return isSupportedCountry(upper) ? upper : null;
};

/**
 * The country the candidate's addresses suggest, when the header names none: the e-mail's country-code domain
 * (`name@firma.de`, `…@example.co.uk`; not a generic one, `.com`, `.io`), else a LinkedIn profile's country subdomain
 * (`de.linkedin.com/in/…`). Weaker than a place written in the header (see `findPhone`).
 */
export function countryOfAddresses(email: string | null, linkedin: string | null): CountryCode | null {
  const tld = email ? /\.(\p{L}{2})$/u.exec(email)?.[1].toLowerCase() : undefined;
  const fromEmail = tld && /^[a-z]{2}$/.test(tld) && !GENERIC_COUNTRY_DOMAINS.has(tld) ? countryOfCode(tld) : null;
  if (fromEmail) return fromEmail;
  const subdomain = linkedin ? /^(?:https?:\/\/)?([a-z]{2})\.linkedin\.com\//i.exec(linkedin)?.[1] : undefined;
  return subdomain ? countryOfCode(subdomain) : null;
}

export function findLinks(text: string): ResumeLinks {
  const links: ResumeLinks = { linkedin: null, github: null, site: null };
  const withoutEmails = text.replace(new RegExp(EMAIL.source, 'gu'), ' ');
  for (const match of withoutEmails.matchAll(URL_LIKE)) {
    const raw = match[0].replace(/[.)]+$/, '');
    const host = raw.replace(/^https?:\/\//i, '').replace(/^www\./i, '').toLowerCase();
    const url = /^https?:\/\//i.test(raw) ? raw : `https://${raw.replace(/^www\./i, 'www.')}`;
    // A profile copied from a country's LinkedIn (de.linkedin.com/in/…) is LinkedIn too, not a personal site.
    if (/^(?:[a-z]{2}\.)?linkedin\.com\//.test(host)) links.linkedin ??= url;
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

/**
 * A city of the short list or a country, written alone ("Berlin", "Germany", "UK"): the names the phone's country is
 * read from (`countryOfHeader`), capitalised, and not a country that is also a US state or a given name ("Georgia").
 */
function isLonePlace(piece: string): boolean {
  if (piece.length > 40 || /\d/.test(piece) || !PLACE_PART.test(piece)) return false;
  const key = piece.toLowerCase();
  return Object.hasOwn(CITIES, key) || (countriesByName().has(key) && !NOT_ALONE.has(key));
}

// One comma piece of a place: capitalised words, with the short lower-case words of place names between them
// ("Frankfurt am Main", "Rio de Janeiro", "Santa Cruz de la Sierra"), or a region's code ("NY", "SP"); no digits.
const PLACE_NAME = /^\p{Lu}[\p{L}\p{M}.'’-]*(?:\s+(?:\p{Lu}[\p{L}\p{M}.'’-]*|(?:de|del|la|le|les|el|da|das|do|dos|di|du|am|an|im|upon|on|sur|y)(?=\s)))*$/u;
// A job title's words, which no place's name has: "Data Engineer, Google" in the header is a headline, not a place.
const TITLE_WORD = /\b(?:engineer|developer|manager|analyst|designer|scientist|consultant|architect|intern|director|specialist|administrator|officer|coordinator|programmer|researcher|technician|assistant|accountant|recruiter|founder|cto|ceo)s?\b/i;
// A company's legal form, which starts an employer's address ("Acme GmbH, Munich, Germany"). Not "College" or
// "University": College Station and University Park are towns.
const COMPANY_WORD = /\b(?:inc|llc|llp|ltd|limited|corp|corporation|gmbh|plc)\b/i;

/**
 * "City, Region, Country" ("Munich, Bavaria, Germany", "New York, NY, USA", "São Paulo, SP, Brazil"): three comma
 * pieces of a place's words, the last a country's name (`countriesByName`). A place with two pieces, "Porto Alegre,
 * Brazil", is `isLocation`'s "City, Region" whatever the city.
 */
function isPlaceWithCountry(piece: string): boolean {
  if (piece.length > 80) return false;
  const parts = piece.split(/\s*,\s*/);
  return parts.length === 3 && parts.every((p) => p.split(/\s+/).length <= 5 && PLACE_NAME.test(p))
    && countriesByName().has(parts[2].toLowerCase());
}

/**
 * Not a place although written like one: a job title ("Data Engineer, Google", "Senior Engineer, Germany"), a
 * company's address ("Acme GmbH, Munich, Germany"), a list of skills ("Python, Java"), or a skill as the city before a
 * country ("Python, Germany"). A skill before a region is a town named like one ("Spring, TX", "Mobile, Alabama"),
 * and a region's code may be a skill's ("Atlanta, GA, USA"), so only the city before a country is asked.
 */
function namesNoPlace(piece: string): boolean {
  if (TITLE_WORD.test(piece) || COMPANY_WORD.test(piece)) return true;
  const parts = piece.split(/\s*,\s*/);
  if (parts.length < 2) return false;
  const taxonomy = skillTaxonomy();
  const skills = parts.map((p) => taxonomy.lookup(p) !== null);
  return skills.every(Boolean) || (skills[0] && countriesByName().has(parts[parts.length - 1].toLowerCase()));
}

/**
 * A "City, Region" (or "Remote") or "City, Region, Country" piece of a header line that is no job title or list of
 * skills; else a large city or a country written alone.
 */
export function findLocation(lines: Line[]): string | null {
  const pieces = headerPieces(lines);
  return pieces.find((p) => (isLocation(p) || isPlaceWithCountry(p)) && !namesNoPlace(p)) ?? pieces.find(isLonePlace) ?? null;
}
