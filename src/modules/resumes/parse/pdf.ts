/**
 * PDF → lines with pdf.js: text items carry positions and font names; the operator list tells which runs are
 * drawn invisibly (white or all but transparent fill, render mode 3/7, an optional-content layer that is off), which
 * are left out and reported, as is text under 4 pt.
 */
import type { ResumeWarning } from '../types.js';
import { pageLines, type TextItem } from './layout.js';
import { UnprocessableResume, type Line } from './lines.js';

export const MAX_PDF_PAGES = 50;
const TINY_POINTS = 4;
/** A fill this transparent (the graphics state's `ca`) is not seen. */
const INVISIBLE_ALPHA = 0.1;

type PdfJs = typeof import('pdfjs-dist/legacy/build/pdf.mjs');
let pdfjs: Promise<PdfJs> | null = null;
const loadPdfJs = () => (pdfjs ??= import('pdfjs-dist/legacy/build/pdf.mjs'));

interface RawItem { str: string; transform: number[]; width: number; fontName: string }
interface Run { text: string; hidden: boolean }

const squash = (s: string) => s.replace(/\s+/g, '');

function isNearWhite(color: unknown): boolean {
  return typeof color === 'string' && /^#[ef][0-9a-f][ef][0-9a-f][ef][0-9a-f]$/i.test(color);
}

/**
 * The text runs of a page in drawing order, each marked hidden when it is painted invisibly or sits in an optional
 * content layer (`/OC … BDC`) that is off.
 */
function runsOf(ops: { fnArray: number[]; argsArray: unknown[][] }, OPS: PdfJs['OPS'], layerShown: (properties: unknown) => boolean): Run[] {
  const runs: Run[] = [];
  let fill: unknown = '#000000';
  let mode = 0;
  let alpha = 1;
  // Marked content open now, each false inside a layer that is off; a count of those, not a search per text run.
  const marked: boolean[] = [];
  let layersOff = 0;
  const stack: { fill: unknown; mode: number; alpha: number }[] = [];
  for (let i = 0; i < ops.fnArray.length; i++) {
    const fn = ops.fnArray[i];
    const args = ops.argsArray[i];
    // A form XObject (a logo, a banner) is drawn in a state of its own, as between q and Q.
    if (fn === OPS.save || fn === OPS.paintFormXObjectBegin) stack.push({ fill, mode, alpha });
    else if (fn === OPS.restore || fn === OPS.paintFormXObjectEnd) ({ fill, mode, alpha } = stack.pop() ?? { fill, mode, alpha });
    else if (fn === OPS.setFillRGBColor) fill = args[0];
    else if (fn === OPS.setTextRenderingMode) mode = Number(args[0]);
    else if (fn === OPS.beginMarkedContent || fn === OPS.beginMarkedContentProps) {
      const shown = fn === OPS.beginMarkedContent || args[0] !== 'OC' || layerShown(args[1]);
      marked.push(shown);
      if (!shown) layersOff++;
    } else if (fn === OPS.endMarkedContent) {
      if (marked.pop() === false) layersOff--;
    } else if (fn === OPS.setGState) {
      // [key, value] pairs; `ca` is the fill's opacity.
      for (const entry of (args[0] ?? []) as unknown[]) {
        if (Array.isArray(entry) && entry[0] === 'ca' && Number.isFinite(Number(entry[1]))) alpha = Number(entry[1]);
      }
    }
    else if (fn === OPS.showText || fn === OPS.showSpacedText) {
      const glyphs = (args[0] ?? []) as unknown[];
      const text = glyphs.map((g) => (g && typeof g === 'object' && 'unicode' in g ? String((g as { unicode: string }).unicode) : '')).join('');
      if (squash(text)) runs.push({ text: squash(text), hidden: isNearWhite(fill) || mode === 3 || mode === 7 || alpha < INVISIBLE_ALPHA || layersOff > 0 });
    }
  }
  return runs;
}

export async function readPdf(bytes: Uint8Array): Promise<{ lines: Line[]; pages: number; columns: number[]; warnings: ResumeWarning[] }> {
  const lib = await loadPdfJs();
  const task = lib.getDocument({
    data: bytes, disableFontFace: true, useSystemFonts: false, verbosity: 0, stopAtErrors: false, enableXfa: false, disableAutoFetch: true,
  });
  let doc;
  try {
    doc = await task.promise;
  } catch (error) {
    const name = (error as { name?: string }).name;
    await task.destroy();
    if (name === 'PasswordException') throw new UnprocessableResume('the PDF is encrypted with a password; upload an unprotected copy');
    throw new UnprocessableResume('the PDF is damaged or incomplete and cannot be read');
  }
  try {
    if (doc.numPages > MAX_PDF_PAGES) {
      throw new UnprocessableResume(`the PDF has ${doc.numPages} pages; a resume may have at most ${MAX_PDF_PAGES}`);
    }
    const layers = await doc.getOptionalContentConfig().catch(() => null);
    const layerShown = (properties: unknown) => {
      try {
        return layers === null || layers.isVisible(properties) !== false;
      } catch {
        return true;
      }
    };
    const lines: Line[] = [];
    const columns: number[] = [];
    let hidden = 0;
    let tiny = 0;
    let images = 0;
    for (let p = 1; p <= doc.numPages; p++) {
      const page = await doc.getPage(p);
      const [, , width, height] = page.view;
      const content = await page.getTextContent();
      const ops = await page.getOperatorList();
      images += ops.fnArray.filter((fn) => fn === lib.OPS.paintImageXObject || fn === lib.OPS.paintInlineImageXObject).length;
      const runs = runsOf(ops, lib.OPS, layerShown);
      let cursor = 0;
      const items: TextItem[] = [];
      const weights = new Map<string, boolean>(); // per font of the page, looked up once
      const isBold = (fontName: string) => {
        let bold = weights.get(fontName);
        if (bold === undefined) {
          const font = page.commonObjs.has(fontName) ? page.commonObjs.get(fontName) as { bold?: boolean; black?: boolean; name?: string } : null;
          bold = Boolean(font?.bold || font?.black || /bold|black|heavy|semibold/i.test(font?.name ?? ''));
          weights.set(fontName, bold);
        }
        return bold;
      };
      for (const raw of content.items as RawItem[]) {
        if (!('str' in raw)) continue;
        const size = Math.hypot(raw.transform[2], raw.transform[3]) || Math.hypot(raw.transform[0], raw.transform[1]);
        const key = squash(raw.str);
        let isHidden = false;
        if (key) {
          for (let r = cursor; r < runs.length; r++) {
            if (runs[r].text.includes(key)) {
              isHidden = runs[r].hidden;
              cursor = r;
              break;
            }
          }
        }
        if (key && isHidden) { hidden++; continue; }
        if (key && size < TINY_POINTS) { tiny++; continue; }
        items.push({ text: raw.str, x: raw.transform[4], top: height - raw.transform[5], width: raw.width, size, bold: isBold(raw.fontName) });
      }
      const read = pageLines(items, width, p);
      lines.push(...read.lines);
      columns.push(read.columns);
      page.cleanup();
    }
    const warnings: ResumeWarning[] = [];
    if (hidden) warnings.push({ code: 'hidden_text', message: `${hidden} text run(s) drawn invisibly (white or transparent) were ignored` });
    if (tiny) warnings.push({ code: 'tiny_text', message: `${tiny} text run(s) smaller than ${TINY_POINTS} pt were ignored` });
    if (columns.some((c) => c > 1)) {
      const pages = columns.flatMap((c, i) => (c > 1 ? [i + 1] : []));
      warnings.push({ code: 'two_column_layout', message: `page(s) ${pages.join(', ')} read as two columns, column by column` });
    }
    if (lines.length === 0 && images > 0) {
      throw new UnprocessableResume('the PDF is a scanned image without a text layer; upload a PDF with selectable text');
    }
    return { lines, pages: doc.numPages, columns, warnings };
  } finally {
    await task.destroy();
  }
}
