import { useEffect, useRef, useState } from 'preact/hooks';
import {
  Board, BOARD_HEIGHT, BOARD_WIDTH, drawItem, extendItem, MAX_ITEMS, MAX_TEXT, render, type Item, type Point, type ShapeKind,
} from './whiteboard-model.js';

/** What the interview tools ask of the board: a PNG of it, whether it changed since last shared, and that it was shared. */
export interface WhiteboardHandle {
  /** The drawing as a PNG at the board's size, with the board's version it shows; null when the board is empty. */
  snapshot(): Promise<{ png: Blob; version: number } | null>;
  /** Something was drawn, undone or cleared since the last share, and there is something to show. */
  dirty(): boolean;
  /** The snapshot of this version was shared: what was drawn while it uploaded is still to share. */
  markShared(version: number): void;
}

type Tool = 'pen' | 'eraser' | 'text' | ShapeKind;

const TOOLS: { id: Tool; label: string; glyph: string }[] = [
  { id: 'pen', label: 'Pen', glyph: '✎' },
  { id: 'eraser', label: 'Eraser', glyph: '⌫' },
  { id: 'line', label: 'Line', glyph: '╱' },
  { id: 'rect', label: 'Rectangle', glyph: '▭' },
  { id: 'ellipse', label: 'Ellipse', glyph: '◯' },
  { id: 'arrow', label: 'Arrow', glyph: '→' },
  { id: 'text', label: 'Text', glyph: 'T' },
];
const COLOURS: { value: string; label: string }[] = [
  { value: '#0f172a', label: 'Black' },
  { value: '#2563eb', label: 'Blue' },
  { value: '#dc2626', label: 'Red' },
  { value: '#16a34a', label: 'Green' },
];
const PEN_WIDTH = 3;
const ERASER_WIDTH = 28;
const TEXT_SIZE = 22;

/** A new item started at `p` with the current tool (text is typed into an input first, so it is not started here). */
function startItem(tool: Exclude<Tool, 'text'>, p: Point, color: string): Item {
  if (tool === 'pen') return { kind: 'stroke', points: [p], color, width: PEN_WIDTH };
  if (tool === 'eraser') return { kind: 'erase', points: [p], width: ERASER_WIDTH };
  return { kind: tool, from: p, to: p, color, width: PEN_WIDTH };
}

const isUndo = (e: KeyboardEvent) => (e.ctrlKey || e.metaKey) && !e.shiftKey && e.key.toLowerCase() === 'z';
const isRedo = (e: KeyboardEvent) => (e.ctrlKey || e.metaKey) && ((e.shiftKey && e.key.toLowerCase() === 'z') || e.key.toLowerCase() === 'y');

/** A whiteboard for sketches during an interview: pen, eraser, shapes and text, undo and redo, shared as a PNG on demand. */
export function Whiteboard({ handle, onShare, sharing, shareNote, disabled }: {
  handle: { current: WhiteboardHandle | null }; onShare(): void; sharing: boolean; shareNote?: string | null; disabled?: boolean;
}) {
  const board = useRef(new Board()).current;
  const canvas = useRef<HTMLCanvasElement>(null);
  const drawing = useRef<{ item: Item; pointer: number } | null>(null);
  const sharedVersion = useRef(0);
  const frame = useRef(0);
  const [tool, setTool] = useState<Tool>('pen');
  const [color, setColor] = useState(COLOURS[0]!.value);
  const [typing, setTyping] = useState<{ at: Point; text: string } | null>(null);
  const [, setVersion] = useState(0);

  const paint = () => {
    frame.current = 0;
    const ctx = canvas.current?.getContext('2d');
    if (!ctx) return;
    render(ctx, board.items, { width: BOARD_WIDTH, height: BOARD_HEIGHT });
    if (drawing.current) drawItem(ctx, drawing.current.item);
  };
  const repaint = () => {
    if (!frame.current) frame.current = requestAnimationFrame(paint);
  };
  const changed = () => {
    setVersion(board.version); // a new render: the toolbar and the "full" note read the board
    repaint();
  };
  useEffect(() => {
    paint();
    return () => cancelAnimationFrame(frame.current);
  }, []);

  handle.current = {
    snapshot: () => {
      if (!board.items.length) return Promise.resolve(null);
      const version = board.version;
      const out = document.createElement('canvas');
      out.width = BOARD_WIDTH;
      out.height = BOARD_HEIGHT;
      render(out.getContext('2d')!, board.items, { width: BOARD_WIDTH, height: BOARD_HEIGHT });
      return new Promise((resolve) => out.toBlob((png) => resolve(png && { png, version }), 'image/png'));
    },
    dirty: () => board.items.length > 0 && board.changedSince(sharedVersion.current),
    markShared: (version) => { sharedVersion.current = version; },
  };

  /** The pointer's position in board coordinates (the canvas is scaled to fit its box). */
  const toBoard = (e: { clientX: number; clientY: number }): Point => {
    const box = canvas.current!.getBoundingClientRect();
    return {
      x: ((e.clientX - box.left) / Math.max(1, box.width)) * BOARD_WIDTH,
      y: ((e.clientY - box.top) / Math.max(1, box.height)) * BOARD_HEIGHT,
    };
  };

  // The note being typed, also as a ref: Enter commits it and moves focus, and the blur that follows must not commit it again.
  const typingNow = useRef<{ at: Point; text: string } | null>(null);
  typingNow.current = typing;
  const closeNote = (commit: boolean) => {
    const note = typingNow.current;
    typingNow.current = null;
    setTyping(null);
    if (commit && note && board.add({ kind: 'text', at: note.at, text: note.text, color, size: TEXT_SIZE })) changed();
  };

  const onPointerDown = (e: PointerEvent) => {
    if (disabled || e.button !== 0 || drawing.current) return;
    e.preventDefault();
    const p = toBoard(e);
    if (tool === 'text') {
      if (typing) closeNote(true);
      setTyping({ at: p, text: '' });
      return;
    }
    canvas.current!.setPointerCapture(e.pointerId);
    canvas.current!.focus({ preventScroll: true });
    drawing.current = { item: startItem(tool, p, color), pointer: e.pointerId };
    repaint();
  };
  const onPointerMove = (e: PointerEvent) => {
    const current = drawing.current;
    if (!current || current.pointer !== e.pointerId) return;
    // Coalesced events keep fast strokes smooth where the browser batches moves into one frame.
    const events = typeof e.getCoalescedEvents === 'function' ? e.getCoalescedEvents() : [];
    for (const m of events.length ? events : [e]) extendItem(current.item, toBoard(m));
    repaint();
  };
  const onPointerUp = (e: PointerEvent) => {
    const current = drawing.current;
    if (!current || current.pointer !== e.pointerId) return;
    drawing.current = null;
    if (e.type === 'pointerup') extendItem(current.item, toBoard(e));
    if (e.type === 'pointerup' && board.add(current.item)) changed();
    else repaint();
  };

  const undo = () => { if (board.undo()) changed(); };
  const redo = () => { if (board.redo()) changed(); };
  const clear = () => { if (board.clear()) changed(); };

  const onKeyDown = (e: KeyboardEvent) => {
    if (isUndo(e)) { e.preventDefault(); undo(); }
    else if (isRedo(e)) { e.preventDefault(); redo(); }
    // Enter on the canvas itself (not on a toolbar button, which Enter must still press).
    else if (e.key === 'Enter' && e.target === canvas.current && tool === 'text' && !disabled) {
      // Keyboard users add notes: each one goes below the notes already on the board.
      e.preventDefault();
      const notes = board.items.filter((i) => i.kind === 'text').length;
      setTyping({ at: { x: 40, y: 40 + ((notes * (TEXT_SIZE + 12)) % (BOARD_HEIGHT - 80)) }, text: '' });
    }
  };

  const box = canvas.current?.getBoundingClientRect();
  const scale = box ? box.width / BOARD_WIDTH : 1;

  return (
    <div class="prep-board">
      <div class="prep-board-tools" role="toolbar" aria-label="Whiteboard tools" onKeyDown={onKeyDown}>
        {TOOLS.map((t) => (
          <button key={t.id} type="button" class={`prep-board-tool${tool === t.id ? ' prep-board-tool-on' : ''}`} aria-pressed={tool === t.id}
            title={t.label} onClick={() => { if (typing) closeNote(true); setTool(t.id); }}>
            <span aria-hidden="true">{t.glyph}</span><span class="prep-board-tool-name">{t.label}</span>
          </button>
        ))}
        <span class="prep-board-sep" />
        {COLOURS.map((c) => (
          <button key={c.value} type="button" class="prep-board-colour" aria-pressed={color === c.value} title={c.label} aria-label={c.label}
            style={{ background: c.value }} onClick={() => setColor(c.value)} />
        ))}
        <span class="prep-board-sep" />
        <button type="button" class="prep-button prep-secondary" onClick={undo} disabled={!board.canUndo} aria-keyshortcuts="Control+Z">Undo</button>
        <button type="button" class="prep-button prep-secondary" onClick={redo} disabled={!board.canRedo} aria-keyshortcuts="Control+Shift+Z">Redo</button>
        <button type="button" class="prep-button prep-secondary" onClick={clear} disabled={!board.items.length}>Clear</button>
        <span class="prep-spacer" />
        <button type="button" class="prep-button" onClick={onShare} disabled={sharing || disabled || !board.items.length}>
          {sharing ? 'Sharing…' : 'Share with interviewer'}
        </button>
      </div>
      <div class="prep-board-paper">
        <canvas ref={canvas} width={BOARD_WIDTH} height={BOARD_HEIGHT} tabIndex={0} class="prep-board-canvas" data-items={board.items.length}
          aria-label="Whiteboard drawing area. Draw with a mouse, pen or finger. With the keyboard, choose Text and press Enter to add a note; Ctrl+Z undoes."
          onPointerDown={onPointerDown} onPointerMove={onPointerMove} onPointerUp={onPointerUp} onPointerCancel={onPointerUp}
          onKeyDown={onKeyDown} />
        {typing ? (
          <input class="prep-board-text" aria-label="Note text" maxLength={MAX_TEXT} autoFocus value={typing.text}
            style={{ left: `${typing.at.x * scale}px`, top: `${typing.at.y * scale}px`, color, fontSize: `${Math.max(12, TEXT_SIZE * scale)}px` }}
            onInput={(e) => setTyping((t) => (t ? { ...t, text: (e.target as HTMLInputElement).value } : t))}
            onKeyDown={(e) => {
              if (e.key === 'Enter') { e.preventDefault(); closeNote(true); canvas.current?.focus(); }
              else if (e.key === 'Escape') { e.preventDefault(); closeNote(false); canvas.current?.focus(); }
            }}
            onBlur={() => closeNote(true)} />
        ) : null}
      </div>
      <p class="prep-help prep-board-note" aria-live="polite">
        {board.items.length >= MAX_ITEMS ? 'The board is full: undo or clear to draw more. ' : ''}
        {shareNote ?? 'The interviewer sees the board when you share it (and once more before the interview ends).'}
      </p>
    </div>
  );
}
