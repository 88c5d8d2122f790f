/**
 * Page layout: positioned text items → lines in reading order. Multi-column pages are found by their gutter: a
 * vertical band in the middle of the page that (almost) no row of text crosses, with real prose on both sides. A
 * right-aligned date column is not a second column (its side holds only dates), and a full-width header above the
 * columns (name, contact line) is read first.
 */
import { findDateRanges } from './dates.js';
import type { Line } from './lines.js';
import { isSectionTitle } from './sections.js';

export interface TextItem {
  text: string;
  x: number;
  /** Baseline, measured from the top of the page. */
  top: number;
  width: number;
  size: number;
  bold: boolean;
}

interface Row {
  items: TextItem[];
  top: number;
  size: number;
}

function rowsOf(items: TextItem[]): Row[] {
  const sorted = [...items].sort((a, b) => a.top - b.top || a.x - b.x);
  const rows: Row[] = [];
  for (const item of sorted) {
    const row = rows.at(-1);
    if (row && Math.abs(item.top - row.top) <= Math.max(1.5, 0.35 * Math.min(item.size, row.size))) {
      row.items.push(item);
      row.size = Math.max(row.size, item.size);
    } else rows.push({ items: [item], top: item.top, size: item.size });
  }
  for (const row of rows) row.items.sort((a, b) => a.x - b.x);
  return rows;
}

function joinItems(items: TextItem[]): string {
  let out = '';
  let end = -Infinity;
  for (const item of items) {
    if (!item.text.trim()) continue; // spaces are put back from the gaps; a wide space item would hide a tab stop
    const gap = item.x - end;
    if (out && gap > 2.5 * item.size) out = out.trimEnd() + '\t';
    else if (out && gap > 0.15 * item.size && !out.endsWith(' ') && !item.text.startsWith(' ')) out += ' ';
    out += item.text;
    end = item.x + item.width;
  }
  return out.replace(/[ \u00a0]+/g, ' ').replace(/ ?\t ?/g, '\t').trim();
}

const covers = (item: TextItem, x: number) => item.x <= x && item.x + item.width >= x;

/** Letters of prose beside the other side's text: dates, section titles and what sits above the other side are not counted. */
function proseLength(rows: Row[], beside: Row[]): { chars: number; rows: number } {
  let chars = 0;
  let count = 0;
  const from = Math.min(...beside.map((r) => r.top)) - 2;
  const to = Math.max(...beside.map((r) => r.top)) + 2;
  for (const row of rows) {
    if (row.top < from || row.top > to) continue;
    let text = joinItems(row.items);
    if (isSectionTitle(text)) continue;
    for (const d of findDateRanges(text).reverse()) text = text.slice(0, d.index) + text.slice(d.index + d.length);
    const letters = text.replace(/[^\p{L}]/gu, '').length;
    chars += letters;
    if (letters >= 8) count++;
  }
  return { chars, rows: count };
}

/** The x of a gutter splitting the page into two text columns, or null for a single column. */
export function findGutter(items: TextItem[], pageWidth: number): number | null {
  const rows = rowsOf(items);
  if (rows.length < 8) return null;
  const limit = Math.max(3, Math.floor(rows.length * 0.15));
  const xs: number[] = [];
  const crossings: number[] = [];
  for (let x = pageWidth * 0.15; x <= pageWidth * 0.85; x += 2) {
    xs.push(x);
    crossings.push(rows.filter((r) => r.items.some((i) => covers(i, x))).length);
  }
  // The widest band under the limit; within it, the stretch crossed least (a long sidebar line may reach into it).
  let best: { from: number; to: number } | null = null;
  for (let i = 0; i < xs.length;) {
    if (crossings[i] > limit) { i++; continue; }
    let j = i;
    while (j + 1 < xs.length && crossings[j + 1] <= limit) j++;
    if (!best || j - i > best.to - best.from) best = { from: i, to: j };
    i = j + 1;
  }
  if (!best || xs[best.to] - xs[best.from] < 8) return null;
  const band = crossings.slice(best.from, best.to + 1);
  const least = Math.min(...band);
  const first = best.from + band.indexOf(least);
  let last = first;
  while (last + 1 <= best.to && crossings[last + 1] === least) last++;
  const gutter = (xs[first] + xs[last]) / 2;
  const left = rows.map((r) => ({ ...r, items: r.items.filter((i) => i.x + i.width < gutter) })).filter((r) => r.items.length);
  const right = rows.map((r) => ({ ...r, items: r.items.filter((i) => i.x > gutter) })).filter((r) => r.items.length);
  // A margin of dates and headings beside one flow of text (a hanging layout) is not a column.
  const l = proseLength(left, right);
  const r = proseLength(right, left);
  const total = l.chars + r.chars;
  // Both sides must hold prose of their own: a column of dates or page numbers is not a column.
  if (total === 0 || l.chars < total * 0.1 || r.chars < total * 0.1 || l.rows < 3 || r.rows < 3) return null;
  return gutter;
}

function toLines(rows: Row[], page: number): Line[] {
  const lines: Line[] = [];
  let previous: Row | null = null;
  for (const row of rows) {
    const text = joinItems(row.items);
    if (!text) continue;
    const bodySize = row.size || 10;
    const gapBefore = previous ? Math.max(0, (row.top - previous.top - previous.size) / bodySize) : 10;
    lines.push({
      text, page, size: Math.round(row.size * 10) / 10, bold: row.items.every((i) => i.bold || !i.text.trim()),
      heading: false, bullet: false, gapBefore: Math.round(gapBefore * 100) / 100, left: Math.round(row.items[0].x),
    });
    previous = row;
  }
  return lines;
}

/** One page's lines in reading order, and whether it was read as two columns. */
export function pageLines(items: TextItem[], pageWidth: number, page: number): { lines: Line[]; columns: number } {
  const visible = items.filter((i) => i.text.trim() || i.text === ' ');
  const gutter = findGutter(visible.filter((i) => i.text.trim()), pageWidth);
  if (gutter === null) return { lines: toLines(rowsOf(visible), page), columns: 1 };
  const spanning = new Set<TextItem>();
  for (const row of rowsOf(visible)) {
    if (row.items.some((i) => i.text.trim() && covers(i, gutter))) for (const i of row.items) spanning.add(i);
  }
  const rest = visible.filter((i) => !spanning.has(i));
  const columnTop = Math.min(...rest.filter((i) => i.text.trim()).map((i) => i.top));
  const header = [...spanning].filter((i) => i.top < columnTop);
  const footer = [...spanning].filter((i) => i.top >= columnTop);
  const left = rest.filter((i) => i.x + i.width / 2 < gutter);
  const right = rest.filter((i) => i.x + i.width / 2 >= gutter);
  // The column that starts higher is read first (a main column under the name before a sidebar); left on a tie.
  const topOf = (column: TextItem[]) => Math.min(...column.filter((i) => i.text.trim()).map((i) => i.top));
  const columns = topOf(right) < topOf(left) - 2 ? [right, left] : [left, right];
  const lines = [
    ...toLines(rowsOf(header), page),
    ...columns.flatMap((column) => toLines(rowsOf(column), page).map((line, i) => (i === 0 ? { ...line, columnStart: true } : line))),
    ...toLines(rowsOf(footer), page),
  ];
  return { lines, columns: 2 };
}
