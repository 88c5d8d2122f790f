/** The whiteboard's drawing model: items, undo and redo, and painting onto a 2D context. No DOM, so it is tested in Node. */

/** The board's logical size: pointer coordinates are mapped into it and snapshots are this size. */
export const BOARD_WIDTH = 1280;
export const BOARD_HEIGHT = 720;
/** Visible items at most; past it `add` refuses (the candidate can undo or clear). */
export const MAX_ITEMS = 2000;
/** Points per stroke at most: a longer stroke is thinned (every other point dropped), never cut short. */
export const MAX_POINTS = 5000;
/** Points held across the whole history, undo and redo included, so a stuck pointer cannot grow memory without bound. */
export const MAX_TOTAL_POINTS = 200_000;
/** History entries (items and clears) at most; the oldest cleared-away part of the history goes first. */
export const MAX_HISTORY = 2 * MAX_ITEMS;
/** A pointer move closer than this (board pixels) to the last kept point is skipped. */
export const MIN_GAP = 1.5;
export const MAX_TEXT = 500;
export const PAPER = '#ffffff';
const FONT = 'system-ui, -apple-system, "Segoe UI", Roboto, Arial, sans-serif';

export interface Point { x: number; y: number }
export type ShapeKind = 'line' | 'rect' | 'ellipse' | 'arrow';
export type Item =
  | { kind: 'stroke'; points: Point[]; color: string; width: number }
  | { kind: 'erase'; points: Point[]; width: number }
  | { kind: ShapeKind; from: Point; to: Point; color: string; width: number }
  | { kind: 'text'; at: Point; text: string; color: string; size: number };

/** What `render` needs of a CanvasRenderingContext2D (a test passes a recording fake). */
export interface Ctx2D {
  fillStyle: string | object;
  strokeStyle: string | object;
  lineWidth: number;
  lineCap: string;
  lineJoin: string;
  font: string;
  textBaseline: string;
  globalCompositeOperation: string;
  save(): void;
  restore(): void;
  fillRect(x: number, y: number, w: number, h: number): void;
  strokeRect(x: number, y: number, w: number, h: number): void;
  beginPath(): void;
  moveTo(x: number, y: number): void;
  lineTo(x: number, y: number): void;
  quadraticCurveTo(cx: number, cy: number, x: number, y: number): void;
  ellipse(x: number, y: number, rx: number, ry: number, rotation: number, start: number, end: number): void;
  stroke(): void;
  fillText(text: string, x: number, y: number): void;
}

const CLEAR = Symbol('clear');
type Entry = Item | typeof CLEAR;

const finite = (p: Point) => Number.isFinite(p.x) && Number.isFinite(p.y);
const pointCost = (e: Entry) => (e === CLEAR ? 0 : 'points' in e ? e.points.length : 2);

/** Drops every other point, keeping the first and the last. */
function halve(points: Point[]): void {
  const last = points[points.length - 1]!;
  let j = 0;
  for (let i = 0; i < points.length; i += 2) points[j++] = points[i]!;
  points.length = j;
  if (points[j - 1] !== last) points.push(last);
}

/** Adds `p` to a stroke: skipped within MIN_GAP of the last point; past MAX_POINTS the stroke is thinned. */
export function extendPoints(points: Point[], p: Point): void {
  if (!finite(p)) return;
  const last = points[points.length - 1];
  if (last && Math.hypot(p.x - last.x, p.y - last.y) < MIN_GAP) return;
  points.push({ x: p.x, y: p.y });
  if (points.length > MAX_POINTS) halve(points);
}

/** Moves an in-progress item's end to `p`: a stroke gains a point, a shape's second corner follows the pointer. */
export function extendItem(item: Item, p: Point): void {
  if (item.kind === 'stroke' || item.kind === 'erase') extendPoints(item.points, p);
  else if (item.kind !== 'text' && finite(p)) item.to = { x: p.x, y: p.y };
}

/** Nothing worth keeping: no points, a shape with no size, empty text, or a coordinate that is not a number. */
export function isBlank(item: Item): boolean {
  switch (item.kind) {
    case 'stroke': case 'erase': return item.points.length === 0 || !item.points.every(finite);
    case 'text': return !item.text.trim() || !finite(item.at);
    default: return !finite(item.from) || !finite(item.to) || Math.hypot(item.to.x - item.from.x, item.to.y - item.from.y) < MIN_GAP;
  }
}

const clamp = (n: number, lo: number, hi: number) => Math.min(hi, Math.max(lo, Number.isFinite(n) ? n : lo));

/** A copy within the caps: strokes thinned to MAX_POINTS, text cut to MAX_TEXT, sizes kept sane. */
function tidy(item: Item): Item {
  switch (item.kind) {
    case 'stroke': case 'erase': {
      const points = item.points.map((p) => ({ x: p.x, y: p.y }));
      while (points.length > MAX_POINTS) halve(points);
      return { ...item, points, width: clamp(item.width, 1, 80) };
    }
    case 'text': return { ...item, at: { ...item.at }, text: item.text.slice(0, MAX_TEXT), size: clamp(item.size, 8, 96) };
    default: return { ...item, from: { ...item.from }, to: { ...item.to }, width: clamp(item.width, 1, 40) };
  }
}

/** The drawing's history: what is visible is everything added since the last clear, less what was undone. */
export class Board {
  private entries: Entry[] = [];
  private undone: Entry[] = [];
  private visible: Item[] = [];
  private points = 0;
  private changes = 0;

  /** Increments on every change. */
  get version(): number { return this.changes; }
  get items(): readonly Item[] { return this.visible; }
  get canUndo(): boolean { return this.entries.length > 0; }
  get canRedo(): boolean { return this.undone.length > 0; }
  changedSince(version: number): boolean { return this.changes !== version; }

  /** Adds a copy of `item` (within the caps); false when it is blank or the board is full. */
  add(item: Item): boolean {
    if (isBlank(item) || this.visible.length >= MAX_ITEMS) return false;
    const clean = tidy(item);
    const cost = pointCost(clean);
    this.forgetRedo();
    this.compact(1, cost);
    if (this.points + cost > MAX_TOTAL_POINTS) return false;
    this.entries.push(clean);
    this.points += cost;
    this.changed();
    return true;
  }

  /** Clears the board as one undoable step; false when it was already empty. */
  clear(): boolean {
    if (!this.visible.length) return false;
    this.forgetRedo();
    this.compact(1, 0);
    this.entries.push(CLEAR);
    this.changed();
    return true;
  }

  undo(): boolean {
    const entry = this.entries.pop();
    if (!entry) return false;
    this.undone.push(entry);
    this.changed();
    return true;
  }

  redo(): boolean {
    const entry = this.undone.pop();
    if (!entry) return false;
    this.entries.push(entry);
    this.changed();
    return true;
  }

  private forgetRedo(): void {
    if (!this.undone.length) return;
    for (const e of this.undone) this.points -= pointCost(e);
    this.undone = [];
    this.changed();
  }

  /** Makes room by dropping the history up to the oldest clear (it is not visible; only undo reached it). */
  private compact(entries: number, points: number): void {
    while (this.entries.length + entries > MAX_HISTORY || this.points + points > MAX_TOTAL_POINTS) {
      const first = this.entries.indexOf(CLEAR);
      if (first < 0) return;
      for (const e of this.entries.splice(0, first + 1)) this.points -= pointCost(e);
    }
  }

  private changed(): void {
    this.changes++;
    const last = this.entries.lastIndexOf(CLEAR);
    this.visible = this.entries.slice(last + 1) as Item[];
  }
}

/** Paints the white paper and then every item; erasing paints the paper colour, so a snapshot shows white there. */
export function render(ctx: Ctx2D, items: readonly Item[], { width, height }: { width: number; height: number }): void {
  ctx.save();
  ctx.globalCompositeOperation = 'source-over';
  ctx.fillStyle = PAPER;
  ctx.fillRect(0, 0, width, height);
  for (const item of items) drawItem(ctx, item);
  ctx.restore();
}

export function drawItem(ctx: Ctx2D, item: Item): void {
  ctx.lineCap = 'round';
  ctx.lineJoin = 'round';
  switch (item.kind) {
    case 'stroke': case 'erase': {
      ctx.strokeStyle = item.kind === 'erase' ? PAPER : item.color;
      ctx.lineWidth = item.width;
      const [first, ...rest] = item.points;
      if (!first) return;
      ctx.beginPath();
      ctx.moveTo(first.x, first.y);
      if (!rest.length) ctx.lineTo(first.x + 0.01, first.y); // a dot (a round cap on a tiny segment)
      // Smoothed: a curve through the midpoints, each point its control.
      for (let i = 0; i < rest.length - 1; i++) {
        const p = rest[i]!, q = rest[i + 1]!;
        ctx.quadraticCurveTo(p.x, p.y, (p.x + q.x) / 2, (p.y + q.y) / 2);
      }
      if (rest.length) ctx.lineTo(rest[rest.length - 1]!.x, rest[rest.length - 1]!.y);
      ctx.stroke();
      return;
    }
    case 'text':
      ctx.fillStyle = item.color;
      ctx.font = `${item.size}px ${FONT}`;
      ctx.textBaseline = 'top';
      ctx.fillText(item.text, item.at.x, item.at.y);
      return;
    case 'rect':
      ctx.strokeStyle = item.color;
      ctx.lineWidth = item.width;
      ctx.strokeRect(Math.min(item.from.x, item.to.x), Math.min(item.from.y, item.to.y), Math.abs(item.to.x - item.from.x), Math.abs(item.to.y - item.from.y));
      return;
    case 'ellipse':
      ctx.strokeStyle = item.color;
      ctx.lineWidth = item.width;
      ctx.beginPath();
      ctx.ellipse((item.from.x + item.to.x) / 2, (item.from.y + item.to.y) / 2, Math.abs(item.to.x - item.from.x) / 2, Math.abs(item.to.y - item.from.y) / 2, 0, 0, 2 * Math.PI);
      ctx.stroke();
      return;
    case 'line': case 'arrow': {
      const { from, to } = item;
      ctx.strokeStyle = item.color;
      ctx.lineWidth = item.width;
      ctx.beginPath();
      ctx.moveTo(from.x, from.y);
      ctx.lineTo(to.x, to.y);
      if (item.kind === 'arrow') {
        const angle = Math.atan2(to.y - from.y, to.x - from.x);
        const head = Math.min(Math.max(12, item.width * 4), Math.hypot(to.x - from.x, to.y - from.y) / 2);
        for (const side of [-1, 1]) {
          ctx.moveTo(to.x, to.y);
          ctx.lineTo(to.x - head * Math.cos(angle + side * Math.PI / 7), to.y - head * Math.sin(angle + side * Math.PI / 7));
        }
      }
      ctx.stroke();
    }
  }
}
