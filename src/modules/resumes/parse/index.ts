/**
 * A resume file → structured fields. Runs inside the parse worker (see pool.ts), which bounds its time and memory;
 * everything that makes a file unreadable as a resume is an UnprocessableResume with a reason a person can act on.
 */
import { DOCUMENT_CONTENT_TYPES, sniffDocument } from '../../../storage/file-type.js';
import type { ParsedResume, ParseResult, ResumeWarning, SectionName, YearMonth } from '../types.js';
import { countryOfAddresses, countryOfHeader, findEmail, findLinks, findLocation, findNameLine, findPhone } from './contact.js';
import { coveredMonths, findDateRanges } from './dates.js';
import { readDocx } from './docx.js';
import { readEducation, readExperience } from './entries.js';
import { stripBullet, UnprocessableResume, type Line } from './lines.js';
import { readPdf } from './pdf.js';
import { splitSections, type Section } from './sections.js';
import { readSkills } from './skills.js';
import { readText } from './text.js';

export { UnprocessableResume } from './lines.js';

/** Fewer letters than this is not a resume (a cover note, a scan's stray OCR, "Hello"). */
export const MIN_LETTERS = 120;
/**
 * More lines than this is not a resume either (fifty full pages, the most a PDF may have): it bounds the work of
 * scoring, which runs on the request thread.
 */
export const MAX_LINES = 5000;
/** Nor is more text than this (fifty full pages): a few very long lines must not pass where many short ones may not. */
export const MAX_CHARS = 300_000;
/**
 * Outside the header a phone number is looked for in this much text from the top: libphonenumber-js tries every run
 * of digits, which costs seconds on a page of "1.1.1.…", and a number far down is a referee's, not the candidate's.
 */
const PHONE_SCAN_CHARS = 20_000;

async function linesOf(bytes: Buffer) {
  const sniffed = sniffDocument(bytes);
  if (!sniffed.type) throw new UnprocessableResume(`not a supported format: ${sniffed.reason}; upload a PDF, DOCX or plain-text file`);
  const contentType = DOCUMENT_CONTENT_TYPES[sniffed.type];
  if (sniffed.type === 'pdf') {
    const pdf = await readPdf(new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength));
    return { contentType, lines: pdf.lines, pages: pdf.pages, warnings: pdf.warnings };
  }
  const read = sniffed.type === 'docx' ? await readDocx(bytes) : { ...readText(sniffed.text), warnings: [] as ResumeWarning[] };
  return { contentType, lines: read.lines, pages: 1, warnings: read.warnings };
}

const linesIn = (sections: Section[], name: SectionName) => sections.filter((s) => s.name === name).flatMap((s) => s.lines);

export async function parseResume(bytes: Buffer, options: { asOf: YearMonth }): Promise<ParseResult> {
  const { contentType, lines, pages, warnings } = await linesOf(bytes);
  const letters = lines.reduce((n, l) => n + (l.text.match(/\p{L}/gu)?.length ?? 0), 0);
  if (letters === 0) throw new UnprocessableResume('the file has no readable text (empty, or a scanned image without a text layer)');
  if (letters < MIN_LETTERS) throw new UnprocessableResume(`the file has too little text to be a resume (${letters} letters)`);
  if (lines.length > MAX_LINES) throw new UnprocessableResume(`the file has ${lines.length} lines of text; a resume may have at most ${MAX_LINES}`);
  const chars = lines.reduce((n, l) => n + l.text.length, 0);
  if (chars > MAX_CHARS) throw new UnprocessableResume(`the file has ${chars} characters of text; a resume may have at most ${MAX_CHARS}`);

  const nameLine = findNameLine(lines);
  const at = nameLine ? lines.indexOf(nameLine) : -1;
  const flow = lines.filter((l) => l !== nameLine);
  if (nameLine?.columnStart && flow[at]) flow[at] = { ...flow[at], columnStart: true }; // the column still starts here
  const { header, sections } = splitSections(flow);
  const headerLines = [...header, ...linesIn(sections, 'contact')];
  const headerText = headerLines.map((l) => l.text).join('\n');
  const allText = lines.map((l) => l.text).join('\n');

  const experienceLines = linesIn(sections, 'experience');
  const experience = readExperience(experienceLines);
  const education = readEducation(linesIn(sections, 'education'));
  const summaryLines = linesIn(sections, 'summary');
  const skills = readSkills(linesIn(sections, 'skills'), experience, [...summaryLines, ...linesIn(sections, 'projects')].map((l) => l.text));

  const email = findEmail(headerText) ?? findEmail(allText);
  const location = findLocation(headerLines);
  const links = findLinks(allText);
  // A number written without its country code is read in the country the header names (its location, a country or a
  // large city written alone), else as US; with none named, as US or else in the country of the e-mail's domain or
  // the LinkedIn profile's subdomain.
  const country = countryOfHeader(headerLines, location);
  const hint = country ? null : countryOfAddresses(email, links.linkedin);
  const phone = findPhone(headerText, country, hint) ?? findPhone(allText.slice(0, PHONE_SCAN_CHARS), country, hint);
  if (!email && !phone) warnings.push({ code: 'no_contact_details', message: 'no email address or phone number was found' });
  if (sections.length === 0) warnings.push({ code: 'no_sections', message: 'no section headings (Experience, Education, Skills…) were found' });
  else if (!sections.some((s) => s.name === 'experience')) warnings.push({ code: 'no_experience_section', message: 'no experience section was found' });
  for (const entry of experience) {
    if (!entry.start) {
      warnings.push({ code: 'unreadable_date', message: `the dates of "${[entry.title, entry.company].filter(Boolean).join(', ') || 'an experience entry'}" could not be read` });
    }
  }
  if (experienceLines.some((l) => findDateRanges(l.text).some((d) => d.yearOnly))) {
    warnings.push({ code: 'year_only_date', message: 'some dates give only a year; a start is read as January of that year, an end of a role as its December' });
  }

  // Up to the current month (`YYYY-MM` compares as text): a role not begun yet, or the future part of one, is no experience.
  const months = coveredMonths(experience.filter((e) => e.start !== null && e.start <= options.asOf).map((e) => {
    const end = e.end ?? (e.current ? options.asOf : e.start as YearMonth);
    return { start: e.start as YearMonth, end: end > options.asOf ? options.asOf : end };
  }));
  const parsed: ParsedResume = {
    name: nameLine ? nameLine.text.replace(/\t.*$/, '').trim() : null,
    email,
    phone,
    location,
    links,
    summary: summaryLines.length ? summaryLines.map((l) => stripBullet(l.text)).join(' ') : null,
    experience,
    education,
    skills,
    languages: linesIn(sections, 'languages').flatMap((l) => stripBullet(l.text).split(/\s*[,;|•·]\s*/))
      .filter((s) => !/^[^(]*\)/.test(s)).map((s) => s.replace(/\s*[(–—:-].*$/, '').trim()).filter((s) => s && s.length <= 40),
    certifications: linesIn(sections, 'certifications').map((l) => stripBullet(l.text)).filter(Boolean),
    total_experience_months: months,
    sections_found: [...new Set(sections.map((s) => s.name))],
    warnings,
  };
  return {
    contentType, pages, parsed,
    sections: [
      { name: 'contact', heading: null, lines: headerLines.map((l) => l.text) },
      ...sections.map((s) => ({ name: s.name, heading: s.heading, lines: s.lines.map((l) => l.text) })),
    ],
  };
}

export type { Line };
