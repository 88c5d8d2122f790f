import { decodeText } from '../../../storage/file-type.js';
import type { Line } from './lines.js';

/** Plain text (UTF-8, or UTF-16 with its byte-order mark) → lines; blank lines become the gap above the next line. */
export function readText(bytes: Buffer): { lines: Line[] } {
  const decoded = decodeText(bytes);
  if ('reason' in decoded) throw new Error(`not text: ${decoded.reason}`); // sniffDocument refused it before this
  const text = decoded.text;
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
