/**
 * Experience and education entries. An entry is a run of header lines (title, company, place, dates in any of the
 * usual arrangements) followed by its bullets; a new header after bullets, or a second dated header, starts the
 * next entry. Pieces of a header are told apart by what they look like: dates, a place, a job title, an institution.
 */
import type { EducationEntry, ExperienceEntry, YearMonth } from '../types.js';
import { isLocation } from './contact.js';
import { findDateRanges, type DateRange } from './dates.js';
import { BULLET, stripBullet, type Line } from './lines.js';

const TITLE_WORDS = /\b(engineer|engineering|developer|manager|analyst|scientist|designer|intern|internship|lead|director|consultant|architect|specialist|administrator|officer|associate|coordinator|head|vp|vice president|president|founder|co-founder|cofounder|tester|sre|programmer|researcher|technician|assistant|executive|strategist|owner|representative|accountant|editor|writer|teacher|instructor|professor|lecturer|fellow|trainee|apprentice|principal|cto|ceo|cfo|coo|cio|devops|qa|recruiter|advisor|adviser|partner|supervisor|nurse|marketer|operator|contractor|freelance|freelancer|mentor|tutor|chief|product|scrum master|sde|swe|staff)\b/i;
const COMPANY_WORDS = /\b(inc|llc|llp|ltd|limited|corp|corporation|company|gmbh|ag|plc|group|technologies|technology|labs|lab|solutions|systems|software|health|healthcare|bank|partners|consulting|studio|studios|agency|holdings|ventures|networks|media|logistics|foods|analytics|capital|energy|pharma|robotics|games|industries|services|digital|financial|insurance|retail|motors|airlines|telecom|hospital|foundation)\b\.?/i;
const INSTITUTION_WORDS = /\b(university|universit[àäé]t?|college|institute|institut|school|academy|polytechnic|politecnico|conservatory|universidad|universidade|hochschule|école|iit|nit|mit|seminary|campus)\b/i;
const DEGREE = /\b(bachelor(?:'s)?(?: of [a-z]+(?: (?!in\b|of\b)[a-z]+)?)?|master(?:'s)?(?: of [a-z]+(?: (?!in\b|of\b)[a-z]+)?)?|doctor(?:ate)?(?: of [a-z]+)?|ph\.?\s?d\.?|m\.?b\.?a\.?|b\.?\s?sc?\.?|m\.?\s?sc?\.?|b\.?\s?a\.?|m\.?\s?a\.?|b\.?\s?eng\.?|m\.?\s?eng\.?|b\.?\s?tech\.?|m\.?\s?tech\.?|b\.?\s?e\.?|m\.?\s?e\.?|b\.?\s?com\.?|associate(?:'s)?(?: of [a-z]+| degree)?|diploma|high school diploma|a\.?a\.?s?\.?|ged|certificate|licen[cs]e)(?=[\s,.:;|]|$)/i;
const STRONG_SEPARATOR = /\s*\t\s*|\s+[|•·]\s+|\s+[—–]\s+|\s+-\s+|\s+@\s+/u;
// "Data Engineer at Northwind": split at "at" only after a job title ("University of Texas at Austin" stays whole).
const TITLE_AT = /^(\S+(?:\s+\S+){0,5}?)\s+at\s+(\p{Lu}.*)$/u;
// A title ends with its role word ("Software Engineer", "Head of Data"), which tells it from a company named after one.
const TITLE_END = /\b(engineer|developer|manager|analyst|scientist|designer|intern|lead|director|consultant|architect|specialist|administrator|officer|associate|coordinator|president|founder|tester|programmer|researcher|technician|assistant|executive|strategist|owner|representative|accountant|editor|writer|teacher|instructor|professor|lecturer|fellow|trainee|apprentice|recruiter|advisor|adviser|supervisor|nurse|marketer|operator|contractor|mentor|tutor|sre|swe|sde|cto|ceo|cfo|coo)\b\.?\s*(?:[IV]+|\d)?$|^(head|vp|vice president|director|chief) of\b/i;

function looksLikeTitle(piece: string): boolean {
  return TITLE_WORDS.test(piece) && (!COMPANY_WORDS.test(piece) || TITLE_END.test(piece));
}

interface Block {
  headers: Line[];
  bullets: string[];
}

const isBullet = (line: Line) => line.bullet || BULLET.test(line.text);
const hasDate = (line: Line) => findDateRanges(line.text).length > 0;

function blocksOf(lines: Line[], entryStart: (line: Line, current: Block) => boolean, wrapped?: (line: Line, previous: Line) => boolean): Block[] {
  const blocks: Block[] = [];
  let current: Block | null = null;
  let lastBullet: Line | null = null;
  for (const line of lines) {
    if (isBullet(line) || (current && current.headers.length > 0 && line.text.split(/\s+/).length > 14 && !hasDate(line))) {
      current ??= { headers: [], bullets: [] };
      current.bullets.push(stripBullet(line.text));
      lastBullet = line;
      continue;
    }
    // A wrapped bullet: no date, tight below the bullet, and indented under its text or starting in lower case.
    if (current && lastBullet && !hasDate(line) && line.gapBefore < 1 && (/^[\p{Ll}\d$€£(]/u.test(line.text) || line.left > lastBullet.left + 2)) {
      current.bullets[current.bullets.length - 1] += ` ${line.text}`;
      continue;
    }
    lastBullet = null;
    const previous = current?.headers.at(-1);
    if (current && previous && current.bullets.length === 0 && wrapped?.(line, previous)) {
      current.headers[current.headers.length - 1] = { ...previous, text: `${previous.text} ${line.text}` };
      continue;
    }
    if (!current || entryStart(line, current)) {
      current = { headers: [], bullets: [] };
      blocks.push(current);
    }
    current.headers.push(line);
  }
  if (current && !blocks.includes(current)) blocks.push(current);
  return blocks;
}

/** Splits header text into pieces and takes out the first date range. */
function piecesOf(headers: Line[], keepInstitutions = false): { pieces: string[]; range: DateRange | null; titleAt: [string, string] | null } {
  let range: DateRange | null = null;
  let titleAt: [string, string] | null = null;
  const pieces: string[] = [];
  for (const line of headers) {
    let text = line.text;
    const found = findDateRanges(text)[0];
    if (found && !range) {
      range = found;
      text = `${text.slice(0, found.index)}\t${text.slice(found.index + found.length)}`;
    }
    for (const piece of text.split(STRONG_SEPARATOR)) {
      const clean = piece.replace(/^[\s,;:|()–—-]+|[\s,;:|(–—-]+$/g, '').replace(/\($/, '').trim();
      if (!clean) continue;
      const at = INSTITUTION_WORDS.test(clean) ? null : TITLE_AT.exec(clean);
      if (at && !titleAt) titleAt = [at[1], at[2]];
      for (const part of at ? [at[1], at[2]] : [clean]) {
        // "Vietnam National University, Hanoi" is one institution; "B.S., Computer Science, MIT" is not.
        // "Engineer at Stripe, Dublin": what follows "at" starts with the company, however much it looks like a place.
        const split = at && part === at[2] && isLocation(part) && part.split(',').length === 2 ? part.split(/\s*,\s*/) : splitCommas(part);
        // "Vietnam National University, Hanoi": a place after an institution stays with it.
        if (keepInstitutions) {
          for (let i = split.length - 1; i > 0; i--) {
            if (INSTITUTION_WORDS.test(split[i - 1]) && /^\p{Lu}[\p{L}.'’-]*(?:\s\p{Lu}[\p{L}.'’-]*){0,2}$/u.test(split[i]) && !DEGREE.test(split[i]) && !INSTITUTION_WORDS.test(split[i])) {
              split.splice(i - 1, 2, `${split[i - 1]}, ${split[i]}`);
            }
          }
        }
        pieces.push(...split);
      }
    }
  }
  return { pieces, range, titleAt };
}

/**
 * "Senior Engineer, Acme Corp, Austin, TX" → title, company, place (legal suffixes and places kept whole). A place ends
 * the text: the last two pieces that read as one are it ("Product Manager, Google, Mountain View, CA" → Google is the
 * company, not "Google, Mountain View" a place); taking "Stripe, Dublin" for a place must leave a piece that is no
 * title ("Software Engineer, Stripe, Dublin" names the company), unless its region is a two-letter code ("…, Austin, TX").
 */
function splitCommas(text: string): string[] {
  if (isLocation(text) && !TITLE_WORDS.test(text) && !COMPANY_WORDS.test(text) && !INSTITUTION_WORDS.test(text)) return [text];
  const out: string[] = [];
  for (const part of text.split(/\s*,\s*/)) {
    const previous = out[out.length - 1];
    if (previous !== undefined && /^(inc|llc|llp|ltd|limited|corp|co|gmbh|ag|plc|s\.?a\.?|l\.?p\.?)\.?$/i.test(part)) out[out.length - 1] = `${previous}, ${part}`;
    else out.push(part);
  }
  for (let i = out.length - 1; i >= 2; i--) {
    const [previous, part] = [out[i - 1], out[i]];
    if (!isLocation(`${previous}, ${part}`) || looksLikeTitle(previous) || looksLikeTitle(part) || COMPANY_WORDS.test(previous)
      || INSTITUTION_WORDS.test(`${previous} ${part}`)) continue;
    const others = [...out.slice(0, i - 1), ...out.slice(i + 1)];
    if (others.every(looksLikeTitle) && !/^\p{Lu}{2}$/u.test(part)) break;
    out.splice(i - 1, 2, `${previous}, ${part}`);
    break;
  }
  return out.filter(Boolean);
}

export function readExperience(lines: Line[]): ExperienceEntry[] {
  const blocks = blocksOf(lines, (line, current) => current.bullets.length > 0 || (hasDate(line) && current.headers.some(hasDate)));
  const entries: ExperienceEntry[] = [];
  // Roles grouped under one employer ("Google — Mountain View, CA", then each title with its dates): the employer
  // named on a line of its own, above its first role, is the company of the dated roles after it that name none.
  let employer: { company: string; location: string | null } | null = null;
  const yearOnlyEnds = new Set<ExperienceEntry>();
  for (const block of blocks) {
    const { pieces, range, titleAt } = piecesOf(block.headers);
    let title: string | null = titleAt?.[0] ?? null;
    let company: string | null = null;
    let location: string | null = null;
    const rest: string[] = [];
    for (const piece of pieces) {
      if (titleAt && piece === titleAt[0]) continue;
      if (!location && isLocation(piece) && !COMPANY_WORDS.test(piece.split(',')[0])) location = piece;
      else if (!title && looksLikeTitle(piece)) title = piece;
      else rest.push(piece);
    }
    for (const piece of rest) {
      if (!company) company = piece;
      else if (!title) title = piece;
    }
    if (!title && !company && block.bullets.length === 0) continue;
    const ownLine = block.headers.length > 1 && !hasDate(block.headers[0]) && !looksLikeTitle(block.headers[0].text);
    if (company) employer = ownLine ? { company, location } : null;
    else if (employer && title && range && !/\b(freelance|self[- ]employed|independent)\b/i.test(title)) {
      company = employer.company;
      location ??= employer.location;
    }
    const entry: ExperienceEntry = {
      company, title, location, start: range?.start ?? null, end: range && !range.current ? range.end : null,
      current: range?.current ?? false, bullets: block.bullets,
    };
    if (range?.endYearOnly) yearOnlyEnds.add(entry);
    entries.push(entry);
  }
  for (const entry of yearOnlyEnds) entry.end = yearOnlyEnd(entry, entries);
  return entries;
}

/**
 * A range ending in a year alone ("2015 – 2018"), or a year alone as a role's whole span ("Analyst, Acme 2019", read
 * as "2019 – 2019": some time in that year, so the whole of it, as an end year counts) ran through that year: it
 * ends in December, or, when another role starts later in that year (or the same month, listed above it), in the
 * month that role starts (the move happened then; "2015 – 2018" then "2018 – Present" is neither a gap nor a year
 * of overlap).
 */
function yearOnlyEnd(entry: ExperienceEntry, entries: ExperienceEntry[]): YearMonth | null {
  if (!entry.end || !entry.start) return entry.end;
  const year = entry.end.slice(0, 4);
  let end: YearMonth = `${year}-12`;
  const position = entries.indexOf(entry);
  entries.forEach((other, i) => {
    // A role listed above it (a later one) that starts the same month took over then: "2019 – Present" above "2019".
    const later = other.start !== null && (other.start > entry.start! || (other.start === entry.start && i < position));
    if (other !== entry && later && other.start!.startsWith(year) && other.start! < end) end = other.start!;
  });
  return end < entry.start ? entry.end : end;
}

function splitDegree(text: string): { degree: string; field: string | null } | null {
  const m = DEGREE.exec(text);
  if (!m) return null;
  const degree = text.slice(m.index, m.index + m[0].length).trim().replace(/[,;:]$/, '');
  let rest = text.slice(m.index + m[0].length).replace(/^[\s,.:;-]+/, '');
  rest = rest.replace(/^(?:in|of)\s+/i, '').replace(/\s*\(.*\)\s*$/, '').trim();
  return { degree, field: rest && !/^\d/.test(rest) ? rest : null };
}

export function readEducation(lines: Line[]): EducationEntry[] {
  const blocks = blocksOf(lines, (line, current) => {
    const text = line.text;
    const piecesSoFar = current.headers.map((l) => l.text).join(' ');
    return current.bullets.length > 0
      || (INSTITUTION_WORDS.test(text) && INSTITUTION_WORDS.test(piecesSoFar))
      || (DEGREE.test(text) && DEGREE.test(piecesSoFar) && !INSTITUTION_WORDS.test(text));
  }, (line, previous) => {
    // "Master of Science in Computer" / "Science": a degree wrapped in a narrow column.
    const text = line.text;
    return line.gapBefore < 1 && !hasDate(line) && !INSTITUTION_WORDS.test(text) && !DEGREE.test(text)
      && DEGREE.test(previous.text) && !hasDate(previous) && text.split(/\s+/).length <= 4 && !/,\s*$/.test(previous.text);
  });
  const entries: EducationEntry[] = [];
  for (const block of blocks) {
    const { pieces, range } = piecesOf(block.headers, true);
    let institution: string | null = null;
    let degree: string | null = null;
    let field: string | null = null;
    const rest: string[] = [];
    for (const piece of pieces) {
      const d: { degree: string; field: string | null } | null = !degree && !INSTITUTION_WORDS.test(piece) ? splitDegree(piece) : null;
      if (d) ({ degree, field } = { degree: d.degree, field: d.field ?? field });
      else if (!institution && INSTITUTION_WORDS.test(piece)) institution = piece;
      else if (!isLocation(piece) && !/^(gpa|grade|honou?rs|cum laude)/i.test(piece)) rest.push(piece);
    }
    if (degree && !field && rest.length && !INSTITUTION_WORDS.test(rest[0])) field = rest.shift() ?? null;
    if (!institution && rest.length) institution = rest.shift() ?? null;
    if (!institution && !degree) continue;
    const single = range && (range.single || range.start === range.end) && !range.current;
    entries.push({
      institution, degree, field,
      start: range && !single ? range.start : null,
      end: range ? (range.current ? null : range.end) : null,
    });
  }
  return entries;
}
