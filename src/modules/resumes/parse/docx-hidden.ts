/**
 * DOCX text a reader never sees: runs hidden (`w:vanish`), under 4 pt, or near-white in a document that shades
 * nothing (white text on a dark sidebar or banner is read). Mammoth reads them all, so they are taken out of the
 * archive's XML before it does, and counted for the warnings. A run's look comes from its own properties, then its
 * character style, then its paragraph's style (each style through its `basedOn` chain), then the document defaults:
 * the first that sets a property wins.
 */
import JSZip from 'jszip';
import { readZipEntry, zipEntries, type ZipEntry } from '../../../storage/file-type.js';

interface Look { vanish?: boolean; halfPoints?: number; white?: boolean }

/** 4 pt, in the half-points `w:sz` counts in: the PDF reader's tiny text too. */
const TINY_HALF_POINTS = 8;
/** The most style levels followed through `basedOn` (a real document has a few). */
const STYLE_DEPTH_MAX = 20;

// Every pattern stops at a tag's end or within a bounded length: a hostile part must not make matching quadratic.
const isNearWhite = (hex: string) => /^[ef][0-9a-f][ef][0-9a-f][ef][0-9a-f]$/i.test(hex);
const rPrOf = (xml: string) => /<w:rPr>((?:(?!<\/w:rPr>|<w:rPr>)[\s\S])*)<\/w:rPr>/.exec(xml)?.[1] ?? '';

function lookOf(rPr: string): Look {
  const look: Look = {};
  const vanish = /<w:vanish\b([^<>]{0,255})>/.exec(rPr);
  if (vanish) look.vanish = !/w:val="(?:false|0|off)"/.test(vanish[1]);
  const size = /<w:sz\s[^<>]{0,255}?w:val="(\d{1,9})"/.exec(rPr);
  if (size) look.halfPoints = Number(size[1]);
  const color = /<w:color\s[^<>]{0,255}?w:val="([^"<>]{0,255})"/.exec(rPr);
  if (color) look.white = isNearWhite(color[1]);
  return look;
}

function stylesOf(xml: string) {
  const styles = new Map<string, { basedOn: string | null; look: Look }>();
  let defaultParagraph: string | null = null;
  for (const m of xml.matchAll(/<w:style\b([^<>]*)>((?:(?!<w:style\b|<\/w:style>)[\s\S])*)<\/w:style>/g)) {
    const id = /w:styleId="([^"<>]{0,255})"/.exec(m[1])?.[1];
    if (!id) continue;
    styles.set(id, { basedOn: /<w:basedOn\s[^<>]{0,255}?w:val="([^"<>]{0,255})"/.exec(m[2])?.[1] ?? null, look: lookOf(rPrOf(m[2])) });
    if (defaultParagraph === null && /w:type="paragraph"/.test(m[1]) && /w:default="(?:1|true|on)"/.test(m[1])) defaultParagraph = id;
  }
  const resolved = new Map<string, Look>();
  const resolve = (id: string | null | undefined, depth = 0): Look => {
    if (!id || depth > STYLE_DEPTH_MAX) return {};
    const known = resolved.get(id);
    if (known) return known;
    const style = styles.get(id);
    if (!style) return {};
    resolved.set(id, {}); // a cycle reads as nothing
    const look = { ...resolve(style.basedOn, depth + 1), ...style.look };
    resolved.set(id, look);
    return look;
  };
  const defaults = lookOf(rPrOf(/<w:rPrDefault>((?:(?!<\/?w:rPrDefault>)[\s\S])*)<\/w:rPrDefault>/.exec(xml)?.[1] ?? ''));
  return { resolve, defaults, defaultParagraph };
}

/** Something in a Word part is shaded, highlighted or filled (a shape): white text there may well be seen. */
function shadesSomething(xml: string): boolean {
  for (const m of xml.matchAll(/w:fill="([^"<>]*)"/g)) if (m[1] !== 'auto' && !isNearWhite(m[1])) return true;
  return /<w:background\b|<w:highlight\b|fillcolor=|<a:solidFill\b|<v:fill\b/.test(xml);
}

/** Paragraph starts and ends, paragraph styles, and innermost runs (a text box's runs sit inside a run). */
const TOKENS = /<w:p(?=[\s>/])[^<>]*>|<\/w:p>|<w:pStyle\s[^<>]{0,255}?w:val="([^"<>]{0,255})"[^<>]*>|(<w:r(?=[\s>])[^<>]*>(?:(?!<w:r[\s>]|<\/w:r>)[\s\S])*<\/w:r>)/g;
const HAS_TEXT = /<w:t(?:\s[^<>]*)?>\s*[^\s<]/;

/**
 * The file with the runs no reader sees taken out of its XML parts (the same file when there are none), and how many
 * runs with text were hidden (hidden or white) or tiny.
 */
export async function withoutHiddenRuns(bytes: Buffer, entries: ZipEntry[], maxBytes: number): Promise<{ bytes: Buffer; entries: ZipEntry[]; hidden: number; tiny: number }> {
  const parts = new Map<string, string>();
  let budget = maxBytes;
  for (const entry of entries.filter((e) => e.name.endsWith('.xml'))) {
    if (budget <= 0) break;
    const xml = readZipEntry(bytes, entry, budget);
    if (!xml) continue;
    budget -= xml.length;
    parts.set(entry.name, xml.toString('utf8'));
  }
  const styles = stylesOf(parts.get('word/styles.xml') ?? '');
  // Word's own parts only: a theme or a chart always has fills of its own.
  const whiteHides = ![...parts.values()].some((xml) => xml.includes('<w:') && shadesSomething(xml));
  const replaced = new Map<string, Buffer>();
  let hidden = 0;
  let tiny = 0;
  for (const [name, xml] of parts) {
    const paragraphStyles: (string | null)[] = [];
    let changed = false;
    const shown = xml.replace(TOKENS, (token: string, paragraphStyle: string | undefined, run: string | undefined) => {
      if (run === undefined) {
        if (paragraphStyle !== undefined) {
          if (paragraphStyles.length) paragraphStyles[paragraphStyles.length - 1] = paragraphStyle;
        } else if (token === '</w:p>') paragraphStyles.pop();
        else if (!token.endsWith('/>')) paragraphStyles.push(null);
        return token;
      }
      const rPr = rPrOf(run);
      const look: Look = {
        ...styles.defaults,
        ...styles.resolve(paragraphStyles.at(-1) ?? styles.defaultParagraph),
        ...styles.resolve(/<w:rStyle\s[^<>]{0,255}?w:val="([^"<>]{0,255})"/.exec(rPr)?.[1]),
        ...lookOf(rPr),
      };
      const isHidden = look.vanish === true || (whiteHides && look.white === true);
      const isTiny = look.halfPoints !== undefined && look.halfPoints < TINY_HALF_POINTS;
      if (!isHidden && !isTiny) return token;
      changed = true;
      if (HAS_TEXT.test(run)) {
        if (isHidden) hidden++;
        else tiny++;
      }
      return '';
    });
    if (changed) replaced.set(name, Buffer.from(shown, 'utf8'));
  }
  if (replaced.size === 0) return { bytes, entries, hidden, tiny };
  // Rewritten with JSZip (mammoth reads archives with it too), stored uncompressed: the copy is only read in memory.
  const zip = await JSZip.loadAsync(bytes);
  for (const [name, content] of replaced) zip.file(name, content);
  const rewritten = await zip.generateAsync({ type: 'nodebuffer', compression: 'STORE' });
  return { bytes: rewritten, entries: zipEntries(rewritten) ?? [], hidden, tiny };
}
