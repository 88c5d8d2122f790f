import type { Line } from './lines.js';

/** A plain-text file's text (as sniffDocument decoded it) → lines; blank lines become the gap above the next line. */
export function readText(text: string): { lines: Line[] } {
  const lines: Line[] = [];
  let blank = 10;
  for (const raw of text.split(/\r\n|\r|\n|\f/)) {
    const clean = raw.replace(/\t+| {3,}/g, '\t').replace(/[ \u00a0]+/g, ' ').trim();
    if (!clean) {
      blank++;
      continue;
    }
    lines.push({ text: clean, page: 1, size: 10, bold: false, heading: false, bullet: false, gapBefore: blank, left: 0 });
    blank = 0;
  }
  return { lines };
}
