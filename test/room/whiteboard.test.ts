import { describe, expect, it } from 'vitest';
import {
  Board, BOARD_HEIGHT, BOARD_WIDTH, extendItem, extendPoints, isBlank, MAX_HISTORY, MAX_ITEMS, MAX_POINTS, MAX_TEXT, MAX_TOTAL_POINTS,
  MIN_GAP, render, type Ctx2D, type Item, type Point,
} from '../../src/room/whiteboard-model.js';

const line = (x: number): Item => ({ kind: 'line', from: { x, y: 0 }, to: { x, y: 100 }, color: '#000', width: 3 });
const stroke = (points: Point[]): Item => ({ kind: 'stroke', points, color: '#000', width: 3 });
const zigzag = (n: number): Point[] => Array.from({ length: n }, (_, i) => ({ x: i * 2, y: i % 2 ? 10 : 0 }));

/** A context that records every call and every property set, in order. */
function recorder(): { ctx: Ctx2D; log: unknown[][] } {
  const log: unknown[][] = [];
  const ctx = new Proxy({} as Record<string, unknown>, {
    get: (_, name) => (...args: unknown[]) => { log.push([name, ...args]); },
    set: (_, name, value) => { log.push(['set', name, value]); return true; },
  }) as unknown as Ctx2D;
  return { ctx, log };
}

describe('the whiteboard board', () => {
  it('starts empty', () => {
    const b = new Board();
    expect(b.items.length).toBe(0);
    expect(b.canUndo).toBe(false);
    expect(b.canRedo).toBe(false);
    expect(b.undo()).toBe(false);
    expect(b.clear()).toBe(false);
  });

  it('adds, undoes and redoes, and a new item forgets what was undone', () => {
    const b = new Board();
    expect(b.add(line(1))).toBe(true);
    expect(b.add(line(2))).toBe(true);
    expect(b.items.map((i) => 'from' in i && i.from.x)).toEqual([1, 2]);
    expect(b.undo()).toBe(true);
    expect(b.items.length).toBe(1);
    expect(b.canRedo).toBe(true);
    expect(b.redo()).toBe(true);
    expect(b.items.length).toBe(2);
    b.undo();
    b.add(line(3));
    expect(b.canRedo).toBe(false);
    expect(b.items.map((i) => 'from' in i && i.from.x)).toEqual([1, 3]);
  });

  it('keeps a copy, so changing the caller’s item later does not change the board', () => {
    const b = new Board();
    const item = stroke([{ x: 1, y: 1 }, { x: 9, y: 9 }]);
    b.add(item);
    if (item.kind === 'stroke') item.points.push({ x: 50, y: 50 });
    expect((b.items[0] as { points: Point[] }).points).toHaveLength(2);
  });

  it('clears as one undoable step', () => {
    const b = new Board();
    b.add(line(1));
    b.add(line(2));
    expect(b.clear()).toBe(true);
    expect(b.items.length).toBe(0);
    expect(b.canUndo).toBe(true);
    b.add(line(3));
    expect(b.items.length).toBe(1);
    b.undo();
    b.undo();
    expect(b.items.length).toBe(2);
    b.redo();
    expect(b.items.length).toBe(0);
  });

  it('counts versions and tells what changed since one', () => {
    const b = new Board();
    const v0 = b.version;
    expect(b.changedSince(v0)).toBe(false);
    b.add(line(1));
    const v1 = b.version;
    expect(v1).toBeGreaterThan(v0);
    expect(b.changedSince(v0)).toBe(true);
    expect(b.changedSince(v1)).toBe(false);
    b.undo();
    expect(b.changedSince(v1)).toBe(true);
    expect(b.version).toBeGreaterThan(v1);
    // Refusals change nothing.
    const v2 = b.version;
    b.add(line(Number.NaN));
    b.clear();
    b.undo();
    b.redo();
    b.undo();
    expect(b.version).toBe(v2 + 2);
  });

  it('refuses blank items: no points, no size, no text, no numbers', () => {
    const b = new Board();
    expect(b.add(stroke([]))).toBe(false);
    expect(b.add({ kind: 'rect', from: { x: 5, y: 5 }, to: { x: 5, y: 5 }, color: '#000', width: 2 })).toBe(false);
    expect(b.add({ kind: 'text', at: { x: 5, y: 5 }, text: '   ', color: '#000', size: 20 })).toBe(false);
    expect(b.add(stroke([{ x: Number.NaN, y: 1 }]))).toBe(false);
    expect(isBlank(stroke([{ x: 1, y: 1 }]))).toBe(false); // a dot is a drawing
    expect(b.items.length).toBe(0);
  });
});

describe('the whiteboard caps', () => {
  it(`holds at most ${MAX_ITEMS} visible items; a clear makes room again`, () => {
    const b = new Board();
    for (let i = 0; i < MAX_ITEMS; i++) expect(b.add(line(i % 1000))).toBe(true);
    expect(b.add(line(1))).toBe(false);
    expect(b.items.length).toBe(MAX_ITEMS);
    b.clear();
    expect(b.add(line(1))).toBe(true);
    expect(b.items.length).toBe(1);
  });

  it('bounds the history across many clears, forgetting the oldest cleared part first', () => {
    const b = new Board();
    for (let round = 0; round < 5; round++) {
      for (let i = 0; i < MAX_ITEMS; i++) b.add(line(i % 1000));
      b.clear();
    }
    b.add(line(7));
    let undos = 0;
    while (b.undo()) undos++;
    expect(undos).toBeLessThanOrEqual(MAX_HISTORY);
    expect(undos).toBeGreaterThan(MAX_ITEMS); // the last clear and what it cleared are still undoable
  });

  it(`thins a stroke past ${MAX_POINTS} points instead of cutting it short`, () => {
    const points: Point[] = [];
    for (let i = 0; i < MAX_POINTS * 3; i++) extendPoints(points, { x: i * 2, y: 0 });
    expect(points.length).toBeLessThanOrEqual(MAX_POINTS);
    expect(points.length).toBeGreaterThan(MAX_POINTS / 4);
    expect(points[0]).toEqual({ x: 0, y: 0 });
    expect(points.at(-1)).toEqual({ x: (MAX_POINTS * 3 - 1) * 2, y: 0 }); // still reaches where the pointer is
  });

  it(`skips pointer moves closer than ${MIN_GAP} px to the last point`, () => {
    const points: Point[] = [];
    for (let i = 0; i < 1000; i++) extendPoints(points, { x: 10 + (i % 2) * 0.5, y: 10 });
    expect(points).toEqual([{ x: 10, y: 10 }]);
    extendPoints(points, { x: 12, y: 10 });
    extendPoints(points, { x: Number.POSITIVE_INFINITY, y: 10 });
    expect(points).toHaveLength(2);
  });

  it('thins an oversized stroke handed to add, and cuts text to its limit', () => {
    const b = new Board();
    const long = zigzag(MAX_POINTS * 2 + 1);
    expect(b.add(stroke(long))).toBe(true);
    const kept = (b.items[0] as { points: Point[] }).points;
    expect(kept.length).toBeLessThanOrEqual(MAX_POINTS);
    expect(kept.length).toBeGreaterThan(MAX_POINTS / 2);
    expect(kept.at(-1)).toEqual(long.at(-1));
    b.add({ kind: 'text', at: { x: 0, y: 0 }, text: 'x'.repeat(MAX_TEXT + 100), color: '#000', size: 20 });
    expect((b.items[1] as { text: string }).text).toHaveLength(MAX_TEXT);
  });

  it(`holds at most ${MAX_TOTAL_POINTS} points in all`, () => {
    const b = new Board();
    const per = MAX_POINTS;
    let added = 0;
    while (b.add(stroke(zigzag(per)))) added++;
    expect(added).toBe(Math.floor(MAX_TOTAL_POINTS / per));
    b.clear();
    expect(b.add(stroke(zigzag(per)))).toBe(true); // the cleared strokes were let go to make room
  });

  it('moves a shape’s end and a stroke’s points while drawing', () => {
    const shape: Item = { kind: 'arrow', from: { x: 0, y: 0 }, to: { x: 0, y: 0 }, color: '#000', width: 3 };
    extendItem(shape, { x: 40, y: 30 });
    expect(shape.kind === 'arrow' && shape.to).toEqual({ x: 40, y: 30 });
    const s = stroke([{ x: 0, y: 0 }]);
    extendItem(s, { x: 5, y: 0 });
    expect(s.kind === 'stroke' && s.points).toHaveLength(2);
  });
});

describe('rendering the whiteboard', () => {
  const size = { width: BOARD_WIDTH, height: BOARD_HEIGHT };

  it('paints white paper first, over the whole board', () => {
    const { ctx, log } = recorder();
    render(ctx, [], size);
    const fill = log.findIndex((c) => c[0] === 'fillRect');
    expect(log[fill]).toEqual(['fillRect', 0, 0, BOARD_WIDTH, BOARD_HEIGHT]);
    expect(log.slice(0, fill)).toContainEqual(['set', 'fillStyle', '#ffffff']);
    expect(log.slice(0, fill)).toContainEqual(['set', 'globalCompositeOperation', 'source-over']);
    expect(log.filter((c) => c[0] === 'stroke' || c[0] === 'fillText')).toEqual([]);
  });

  it('draws every kind of item after the paper', () => {
    const { ctx, log } = recorder();
    const items: Item[] = [
      stroke([{ x: 1, y: 1 }, { x: 20, y: 20 }, { x: 40, y: 10 }]),
      { kind: 'rect', from: { x: 50, y: 60 }, to: { x: 10, y: 20 }, color: '#2563eb', width: 3 },
      { kind: 'ellipse', from: { x: 0, y: 0 }, to: { x: 100, y: 50 }, color: '#000', width: 3 },
      { kind: 'arrow', from: { x: 0, y: 0 }, to: { x: 100, y: 0 }, color: '#dc2626', width: 3 },
      { kind: 'text', at: { x: 30, y: 40 }, text: 'load balancer', color: '#16a34a', size: 24 },
    ];
    render(ctx, items, size);
    const first = log.findIndex((c) => c[0] === 'fillRect');
    const after = log.slice(first + 1);
    expect(after).toContainEqual(['strokeRect', 10, 20, 40, 40]);
    expect(after).toContainEqual(['ellipse', 50, 25, 50, 25, 0, 0, 2 * Math.PI]);
    expect(after).toContainEqual(['fillText', 'load balancer', 30, 40]);
    expect(after).toContainEqual(['set', 'font', expect.stringMatching(/^24px /)]);
    expect(after.filter((c) => c[0] === 'stroke')).toHaveLength(3); // the pen, the ellipse and the arrow
    // The arrow has its shaft and two sides of a head.
    const arrow = after.slice(after.findIndex((c) => c[0] === 'set' && c[2] === '#dc2626'));
    expect(arrow.filter((c) => c[0] === 'lineTo').length).toBe(3);
  });

  it('erases by painting the paper colour, so a snapshot is white there', () => {
    const { ctx, log } = recorder();
    render(ctx, [stroke([{ x: 0, y: 0 }, { x: 9, y: 9 }]), { kind: 'erase', points: [{ x: 0, y: 0 }, { x: 9, y: 9 }], width: 24 }], size);
    const erase = log.slice(log.findLastIndex((c) => c[0] === 'beginPath') - 3);
    expect(erase).toContainEqual(['set', 'strokeStyle', '#ffffff']);
    expect(erase).toContainEqual(['set', 'lineWidth', 24]);
    expect(log.filter((c) => c[0] === 'set' && c[1] === 'globalCompositeOperation').map((c) => c[2])).toEqual(['source-over']);
    expect(log.at(-2)?.[0]).toBe('stroke');
  });

  it('draws a single-point stroke as a dot', () => {
    const { ctx, log } = recorder();
    render(ctx, [stroke([{ x: 5, y: 5 }])], size);
    expect(log.filter((c) => c[0] === 'lineTo')).toHaveLength(1);
    expect(log.filter((c) => c[0] === 'stroke')).toHaveLength(1);
  });
});
