import { describe, it, expect } from 'vitest';
import zlib from 'node:zlib';
import { findPhoneNumbersInText, isValidPhoneNumber } from 'libphonenumber-js';
import mammoth from 'mammoth';
import { getDocument } from 'pdfjs-dist/legacy/build/pdf.mjs';
import type { ParsedResume } from '../../src/modules/resumes/types.js';
import {
  ALLOWED_SKILLS, addCounts, buildCorpus, buildFitPairs, f1, fieldScores, hostileFiles, mentionedSkills,
  type CorpusFile, type ResumeTruth,
} from '../helpers/resume-corpus.js';

interface Item { str: string; x: number; y: number }

async function pdfText(bytes: Buffer): Promise<{ pages: number; items: Item[][] }> {
  const task = getDocument({ data: new Uint8Array(bytes), disableFontFace: true, verbosity: 0 });
  const doc = await task.promise;
  const items: Item[][] = [];
  for (let n = 1; n <= doc.numPages; n++) {
    const content = await (await doc.getPage(n)).getTextContent();
    items.push(content.items.flatMap((it) => ('str' in it && it.str.trim() ? [{ str: it.str, x: it.transform[4], y: it.transform[5] }] : [])));
  }
  const pages = doc.numPages;
  await task.destroy();
  return { pages, items };
}

/** Central-directory names and total uncompressed size of a zip. */
function zipListing(zip: Buffer): { names: string[]; size: number } {
  const eocd = zip.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  expect(eocd).toBeGreaterThan(0);
  const names: string[] = [];
  let size = 0;
  let at = zip.readUInt32LE(eocd + 16);
  for (let i = 0; i < zip.readUInt16LE(eocd + 10); i++) {
    expect(zip.readUInt32LE(at)).toBe(0x02014b50);
    size += zip.readUInt32LE(at + 24);
    const nameLen = zip.readUInt16LE(at + 28);
    names.push(zip.toString('utf8', at + 46, at + 46 + nameLen));
    at += 46 + nameLen + zip.readUInt16LE(at + 30) + zip.readUInt16LE(at + 32);
  }
  return { names, size };
}

async function textOf(file: CorpusFile): Promise<string> {
  if (file.format === 'txt') return file.bytes.toString('utf8');
  if (file.format === 'docx') return (await mammoth.extractRawText({ buffer: file.bytes })).value;
  return (await pdfText(file.bytes)).items.flat().map((i) => i.str).join('\n');
}

const corpusP = buildCorpus();
const pairsP = buildFitPairs();
const YM = /^\d{4}-(0[1-9]|1[0-2])$/;

function checkTruth(t: ResumeTruth): void {
  expect(t.name.trim()).not.toBe('');
  expect(t.email).toMatch(/^[a-z0-9._]+@example\.(com|org)$/);
  expect(t.phone).toMatch(/^\+\d{8,15}$/);
  expect(isValidPhoneNumber(t.phone), t.phone).toBe(true);
  expect(t.experience.length).toBeGreaterThanOrEqual(1);
  expect(t.experience.length).toBeLessThanOrEqual(7);
  for (const e of t.experience) {
    expect(e.start).toMatch(YM);
    if (e.end !== null) {
      expect(e.end).toMatch(YM);
      expect(e.end >= e.start).toBe(true);
    }
  }
  expect(t.education.length).toBeGreaterThanOrEqual(1);
  for (const e of t.education) expect(e.end).toMatch(YM);
  for (const s of t.skills) expect(ALLOWED_SKILLS, s).toContain(s);
}

describe('resume corpus', () => {
  it('has at least 36 files, 9 per format, with unique ids and valid truth', async () => {
    const corpus = await corpusP;
    expect(corpus.length).toBeGreaterThanOrEqual(36);
    for (const format of ['pdf-1col', 'pdf-2col', 'docx', 'txt'] as const) {
      expect(corpus.filter((f) => f.format === format).length, format).toBeGreaterThanOrEqual(9);
    }
    expect(new Set(corpus.map((f) => f.id)).size).toBe(corpus.length);
    for (const f of corpus) checkTruth(f.truth);
    // Variety: several date styles' worth of truth, current and past roles, multi-page files.
    expect(corpus.some((f) => f.truth.experience.some((e) => e.end === null))).toBe(true);
    expect(corpus.filter((f) => f.format.startsWith('pdf') && f.pages > 1).length).toBeGreaterThanOrEqual(3);
  });

  it('writes real containers: PDFs with the stated page count, DOCX zips with word/document.xml, UTF-8 text', async () => {
    for (const f of await corpusP) {
      if (f.format === 'docx') {
        expect(f.bytes.subarray(0, 4).toString('latin1')).toBe('PK\x03\x04');
        expect(zipListing(f.bytes).names).toContain('word/document.xml');
      } else if (f.format === 'txt') {
        expect(() => new TextDecoder('utf-8', { fatal: true }).decode(f.bytes)).not.toThrow();
        expect(f.pages).toBe(1);
      } else {
        expect(f.bytes.subarray(0, 5).toString('latin1')).toBe('%PDF-');
        expect((await pdfText(f.bytes)).pages, f.id).toBe(f.pages);
      }
    }
  });

  it('names exactly the truth skills in the text (and the truth name, contact details, companies, institutions)', async () => {
    const pairFiles = (await pairsP).flatMap((p) => [p.strong, p.weak]);
    for (const f of [...(await corpusP), ...pairFiles]) {
      const text = await textOf(f);
      expect(mentionedSkills(text), f.id).toEqual(f.truth.skills);
      const flat = text.replace(/\s+/g, ' ').toLowerCase();
      expect(flat, f.id).toContain(f.truth.name.toLowerCase());
      for (const e of f.truth.experience) expect(flat, f.id).toContain(e.company.toLowerCase());
      for (const e of f.truth.education) expect(flat, f.id).toContain(e.institution.toLowerCase());
      // DOCX files may carry their contact details in the page header, which mammoth does not read.
      if (f.format !== 'docx') {
        expect(flat, f.id).toContain(f.truth.email);
        expect(findPhoneNumbersInText(text, 'US').map((n) => n.number.number), f.id).toContain(f.truth.phone);
      }
    }
  });

  it('draws two-column PDFs as two x bands whose lines share y values', async () => {
    for (const f of (await corpusP).filter((c) => c.format === 'pdf-2col')) {
      const [page] = (await pdfText(f.bytes)).items;
      const starts = page.map((i) => Math.round(i.x));
      const leftBand = page.filter((i) => i.x < 200);
      const rightBand = page.filter((i) => i.x >= 200);
      expect(leftBand.length, f.id).toBeGreaterThan(8);
      expect(rightBand.length, f.id).toBeGreaterThan(8);
      expect(Math.max(...starts) - Math.min(...starts), f.id).toBeGreaterThan(170);
      const ys = (band: Item[]): Set<number> => new Set(band.map((i) => Math.round(i.y)));
      const leftYs = ys(leftBand);
      const shared = [...ys(rightBand)].filter((y) => leftYs.has(y));
      expect(shared.length, f.id).toBeGreaterThanOrEqual(8);
    }
  });

  it('is deterministic', async () => {
    const again = await buildCorpus();
    const first = await corpusP;
    expect(again.map((f) => f.id)).toEqual(first.map((f) => f.id));
    again.forEach((f, i) => expect(f.bytes.equals(first[i].bytes), f.id).toBe(true));
  });
});

describe('fit pairs', () => {
  it('has at least 24 briefs with requirements, a strong and a weak resume each, and at least 6 keyword stuffers', async () => {
    const pairs = await pairsP;
    expect(pairs.length).toBeGreaterThanOrEqual(24);
    expect(new Set(pairs.map((p) => p.brief.role)).size).toBe(pairs.length);
    const formats = new Set(pairs.flatMap((p) => [p.strong.format, p.weak.format]));
    expect(formats.size).toBe(4);
    let stuffers = 0;
    for (const p of pairs) {
      const jd = p.brief.job_description;
      const lines = jd.split('\n').filter((l) => l.trim());
      expect(lines.length, p.brief.role).toBeGreaterThanOrEqual(8);
      expect(jd.split('\n').length, p.brief.role).toBeLessThanOrEqual(20);
      expect(jd).toMatch(/Requirements:|Must have:/);
      expect(jd).toMatch(/Nice to have:|Preferred:/);
      expect(jd).toMatch(/\d+\+ years of experience/);
      checkTruth(p.strong.truth);
      checkTruth(p.weak.truth);
      const [, after] = jd.split(/Requirements:|Must have:/);
      const [must] = after.split(/Nice to have:|Preferred:/);
      const required = mentionedSkills(must);
      expect(required.length, p.brief.role).toBeGreaterThanOrEqual(2);
      for (const s of required) expect(p.strong.truth.skills, `${p.brief.role}: strong lacks ${s}`).toContain(s);
      const months = (t: ResumeTruth): number => t.experience.reduce((sum, e) => {
        const [sy, sm] = e.start.split('-').map(Number);
        const [ey, em] = (e.end ?? '2026-01').split('-').map(Number);
        return sum + (ey - sy) * 12 + (em - sm);
      }, 0);
      if (p.note.includes('keyword stuffer')) {
        stuffers++;
        for (const s of mentionedSkills(after)) expect(p.weak.truth.skills, `${p.brief.role}: stuffer lists ${s}`).toContain(s);
        expect(months(p.weak.truth)).toBeLessThan(24);
      } else expect(required.filter((s) => p.weak.truth.skills.includes(s)).length).toBeLessThanOrEqual(2);
      expect(months(p.strong.truth), p.brief.role).toBeGreaterThan(months(p.weak.truth) - (p.note.includes('different field') ? 1000 : 0));
    }
    expect(stuffers).toBeGreaterThanOrEqual(6);
  });
});

describe('hostile files', () => {
  it('are within their size limits and are what they claim to be', async () => {
    const h = await hostileFiles();
    const MiB = 1 << 20;
    // Zip bomb: a small zip whose word/document.xml inflates past 1 GiB.
    expect(h.zipBombDocx.length).toBeLessThan(10 * MiB);
    const bomb = zipListing(h.zipBombDocx);
    expect(bomb.names).toEqual(expect.arrayContaining(['[Content_Types].xml', 'word/document.xml']));
    expect(bomb.size).toBeGreaterThanOrEqual(1024 * MiB);
    const localName = h.zipBombDocx.indexOf('word/document.xml');
    const payload = h.zipBombDocx.subarray(localName + 'word/document.xml'.length);
    expect(() => zlib.inflateRawSync(payload, { maxOutputLength: 4 * MiB })).toThrow(RangeError);

    expect(h.tenThousandPagesPdf.length).toBeLessThan(2 * MiB);
    const manyTask = getDocument({ data: new Uint8Array(h.tenThousandPagesPdf), disableFontFace: true, verbosity: 0 });
    const many = await manyTask.promise;
    expect(many.numPages).toBe(10_000);
    expect((await (await many.getPage(9_999)).getTextContent()).items.length).toBeGreaterThan(0);
    await manyTask.destroy();

    expect(h.endlessPdf.length).toBeLessThanOrEqual(10 * MiB);
    expect(h.endlessPdf.subarray(0, 5).toString('latin1')).toBe('%PDF-');
    expect(h.binaryJunk.length).toBe(64 * 1024);
    for (const name of ['truncatedPdf', 'encryptedPdf', 'scannedPdf', 'emptyPdf', 'tooLittleText', 'hiddenTextPdf', 'polyglot'] as const) {
      expect(h[name].subarray(0, 5).toString('latin1'), name).toBe('%PDF-');
      expect(h[name].length, name).toBeLessThan(MiB);
    }
    expect(h.polyglot.subarray(0, 8).toString('latin1')).toBe('%PDF-1.7');
    expect(zipListing(h.polyglot).names).toContain('word/document.xml');
    expect(h.encryptedPdf.includes('/Encrypt')).toBe(true);
    expect(h.truncatedPdf.includes('%%EOF')).toBe(false);
    const scanned = await pdfText(h.scannedPdf);
    expect(scanned.pages).toBe(1);
    expect(scanned.items[0].length).toBe(0);
    expect((await pdfText(h.emptyPdf)).items[0].length).toBe(0);
    expect((await pdfText(h.tooLittleText)).items[0].map((i) => i.str)).toEqual(['Hello']);
    const hidden = (await pdfText(h.hiddenTextPdf)).items.flat().map((i) => i.str).join('\n');
    expect(hidden).toContain('Kubernetes Terraform Rust Scala');
  });
});

describe('fieldScores', () => {
  const asParsed = (t: ResumeTruth): ParsedResume => ({
    name: t.name, email: t.email, phone: t.phone, location: null, links: { linkedin: null, github: null, site: null }, summary: null,
    experience: t.experience.map((e) => ({ company: e.company, title: e.title, location: null, start: e.start, end: e.end, current: e.end === null, bullets: [] })),
    education: t.education.map((e) => ({ institution: e.institution, degree: e.degree, field: e.field, start: null, end: e.end })),
    skills: t.skills.map((s) => ({ name: s, canonical: s, evidence: 'listed' as const })),
    languages: [], certifications: [], total_experience_months: 0, sections_found: [], warnings: [],
  });

  it('scores a perfect parse as 1 and penalises misses and extras', async () => {
    const [file] = await corpusP;
    const truth: ResumeTruth = {
      ...file.truth,
      experience: [{ company: 'Pelican Shipping Ltd.', title: 'Data Analyst', start: '2020-01', end: null }, ...file.truth.experience],
    };
    const perfect = fieldScores(truth, asParsed(truth));
    for (const [field, counts] of Object.entries(perfect)) expect(f1(counts), field).toBe(1);

    const parsed = asParsed(truth);
    parsed.name = truth.name.toUpperCase();
    parsed.email = ` ${truth.email.toUpperCase()} `;
    parsed.phone = truth.phone.replace(/^\+(\d)/, '+$1 ');
    parsed.experience[0].company = 'Pelican Shipping';
    parsed.experience[0].title = 'data analyst.';
    parsed.experience[1].start = null;
    const extra = ALLOWED_SKILLS.find((s) => !truth.skills.includes(s)) as string;
    parsed.skills = [...parsed.skills.slice(1), { name: 'Cobol', canonical: null, evidence: 'listed' }, { name: extra, canonical: extra, evidence: 'listed' }];
    const scores = fieldScores(truth, parsed);
    expect(scores.name).toEqual({ tp: 1, fp: 0, fn: 0 });
    expect(scores.email).toEqual({ tp: 1, fp: 0, fn: 0 });
    expect(scores.phone).toEqual({ tp: 1, fp: 0, fn: 0 });
    expect(scores.companies.tp).toBe(truth.experience.length);
    expect(scores.titles.tp).toBe(truth.experience.length);
    expect(scores.dates.fn).toBe(1);
    expect(scores.skills).toEqual({ tp: truth.skills.length - 1, fp: 1, fn: 1 });
    expect(fieldScores(truth, { ...parsed, name: null }).name).toEqual({ tp: 0, fp: 0, fn: 1 });
    expect(fieldScores(truth, { ...parsed, name: 'Someone Else' }).name).toEqual({ tp: 0, fp: 1, fn: 1 });
    expect(f1(addCounts(scores.name, { tp: 0, fp: 1, fn: 1 }))).toBeCloseTo(0.5);
  });
});
