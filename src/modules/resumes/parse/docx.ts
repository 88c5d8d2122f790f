/**
 * DOCX → lines with mammoth (headings, lists and tables come through as HTML). The archive's declared sizes are
 * checked first, so a ZIP bomb is refused before anything inflates; a bomb that lies about its sizes runs into the
 * parse worker's memory limit instead.
 */
import mammoth from 'mammoth';
import { readZipEntry, zipEntries, type ZipEntry } from '../../../storage/file-type.js';
import type { ResumeWarning } from '../types.js';
import { withoutHiddenRuns } from './docx-hidden.js';
import { UnprocessableResume, type Line } from './lines.js';

const MAX_EXPANDED_BYTES = 40 * 1024 * 1024;
const STYLE_MAP = ["p[style-name='Title'] => h1:fresh", "p[style-name='Subtitle'] => h2:fresh"];
const SIZES: Record<string, number> = { h1: 20, h2: 14, h3: 12, h4: 11, h5: 11, h6: 11 };

// A Map: a header part is read as written (not by mammoth), and `&constructor;` must find no Object property.
const ENTITIES = new Map([['amp', '&'], ['lt', '<'], ['gt', '>'], ['quot', '"'], ['apos', "'"], ['nbsp', ' ']]);
function decode(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (all, e: string) => {
    if (e[0] === '#') {
      const n = e[1] === 'x' || e[1] === 'X' ? parseInt(e.slice(2), 16) : Number(e.slice(1));
      return Number.isFinite(n) && n > 0 && n < 0x110000 ? String.fromCodePoint(n) : '';
    }
    return ENTITIES.get(e.toLowerCase()) ?? all;
  });
}

interface Paragraph { text: string; tag: string; bold: boolean; bullet: boolean }

/** Mammoth's HTML (a small, well-formed vocabulary) → paragraphs; a table row of one-paragraph cells is one line. */
function paragraphsOf(html: string): Paragraph[] {
  const out: Paragraph[] = [];
  let text = '';
  let boldChars = 0;
  let strong = 0;
  let listDepth = 0;
  let block = 'p';
  let inRow = false;
  let cells: Paragraph[][] = [];
  const flush = () => {
    const clean = text.replace(/[^\S\t]+/g, ' ').replace(/ *\t[\t ]*/g, '\t').trim(); // a tab stop parts title and dates
    if (clean) {
      const p = { text: clean, tag: block, bold: boldChars >= clean.replace(/\s/g, '').length, bullet: block === 'li' };
      if (inRow && cells.length) cells[cells.length - 1].push(p);
      else out.push(p);
    }
    text = '';
    boldChars = 0;
  };
  for (const m of html.matchAll(/<(\/?)([a-z0-9]+)[^>]*>|([^<]+)/gi)) {
    if (m[3] !== undefined) {
      const t = decode(m[3]);
      text += t;
      if (strong > 0) boldChars += t.replace(/\s/g, '').length;
      continue;
    }
    const closing = m[1] === '/';
    const tag = m[2].toLowerCase();
    if (tag === 'strong' || tag === 'b') strong += closing ? -1 : 1;
    else if (tag === 'br') text += ' ';
    else if (tag === 'ul' || tag === 'ol') listDepth += closing ? -1 : 1;
    else if (/^(p|h[1-6]|li)$/.test(tag)) {
      flush();
      block = closing ? (listDepth > 0 ? 'li' : 'p') : tag;
    } else if (tag === 'tr') {
      flush();
      if (!closing) {
        inRow = true;
        cells = [];
      } else {
        inRow = false;
        if (cells.every((c) => c.length <= 1)) {
          const filled = cells.filter((c) => c.length === 1).map((c) => c[0]);
          if (filled.length) out.push({ ...filled[0], text: filled.map((c) => c.text).join('\t'), bold: filled.every((c) => c.bold) });
        } else for (const cell of cells) out.push(...cell); // a layout table: read cell by cell
      }
    } else if ((tag === 'td' || tag === 'th') && !closing) {
      flush();
      cells.push([]);
    } else if (tag === 'td' || tag === 'th') flush();
  }
  flush();
  return out;
}

/**
 * A document has a few headers and footers (default, first page, even pages, per section): more than this many of
 * either, or more than this much XML in them all, is not a resume's. Their declared sizes cannot be trusted (ZIP
 * entries may share one block of data), so the budget counts the bytes actually inflated.
 */
const HEADER_FOOTER_PARTS_MAX = 12;
const HEADER_FOOTER_BYTES_MAX = 2 * 1024 * 1024;

/** The page header or footer parts, in order; more than a resume has is refused. */
function headerFooterParts(entries: ZipEntry[], part: 'header' | 'footer'): ZipEntry[] {
  const parts = entries.filter((e) => new RegExp(`^word/${part}\\d*\\.xml$`).test(e.name)).sort((a, b) => a.name.localeCompare(b.name));
  if (parts.length > HEADER_FOOTER_PARTS_MAX) throw new UnprocessableResume(`the document has ${parts.length} page ${part}s; a resume has a few`);
  return parts;
}

/** Page headers and footers (mammoth leaves them out; contact details often live there): their paragraphs' text. */
function headerFooterLines(bytes: Buffer, entries: ZipEntry[], part: 'header' | 'footer'): string[] {
  const parts = headerFooterParts(entries, part);
  const out = new Set<string>();
  let budget = HEADER_FOOTER_BYTES_MAX;
  for (const entry of parts) {
    const xml = readZipEntry(bytes, entry, Math.min(1024 * 1024, budget));
    if (!xml) continue;
    budget -= xml.length;
    for (const paragraph of xml.toString('utf8').split(/<\/w:p>/)) {
      const text = decode([...paragraph.matchAll(/<w:t(?:\s[^>]*)?>([^<]*)<\/w:t>|<w:(tab)\/>/g)].map((m) => m[2] ? '\t' : m[1]).join(''))
        .replace(/[ \u00a0]+/g, ' ').trim();
      if (text) out.add(text);
    }
  }
  return [...out];
}

export async function readDocx(file: Buffer): Promise<{ lines: Line[]; warnings: ResumeWarning[] }> {
  const declared = zipEntries(file) ?? [];
  const expanded = declared.reduce((sum, e) => sum + e.uncompressedSize, 0);
  if (expanded > MAX_EXPANDED_BYTES || declared.some((e) => e.compressedSize > 0 && e.uncompressedSize / e.compressedSize > 1000)) {
    throw new UnprocessableResume(`the DOCX expands to ${Math.round(expanded / 1048576)} MB, more than any resume needs (a ZIP bomb?)`);
  }
  for (const part of ['header', 'footer'] as const) headerFooterParts(declared, part);
  // What Word would not show (hidden, white, tiny) is taken out before mammoth reads the rest.
  const { bytes, entries, hidden, tiny } = await withoutHiddenRuns(file, declared, MAX_EXPANDED_BYTES);
  const warnings: ResumeWarning[] = [];
  if (hidden) warnings.push({ code: 'hidden_text', message: `${hidden} text run(s) formatted hidden or white were ignored` });
  if (tiny) warnings.push({ code: 'tiny_text', message: `${tiny} text run(s) smaller than 4 pt were ignored` });
  let html: string;
  try {
    html = (await mammoth.convertToHtml({ buffer: bytes }, { styleMap: STYLE_MAP, includeDefaultStyleMap: true, ignoreEmptyParagraphs: true })).value;
  } catch {
    throw new UnprocessableResume('the DOCX is damaged and cannot be read');
  }
  const paragraphs = [
    ...headerFooterLines(bytes, entries, 'header').map((text) => ({ text, tag: 'p', bold: false, bullet: false })),
    ...paragraphsOf(html),
    ...headerFooterLines(bytes, entries, 'footer').map((text) => ({ text, tag: 'p', bold: false, bullet: false })),
  ];
  const lines: Line[] = paragraphs.map((p, i) => ({
    text: p.bullet ? `• ${p.text}` : p.text,
    page: 1,
    size: SIZES[p.tag] ?? 10,
    bold: p.bold,
    heading: /^h[1-6]$/.test(p.tag),
    bullet: p.bullet,
    gapBefore: i === 0 ? 10 : 0,
    left: 0,
  }));
  return { lines, warnings };
}
