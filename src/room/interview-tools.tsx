import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { putSigned, RoomError } from './api.js';
import { Drafts } from './drafts.js';
import { createEditor, defaultLanguage, type CodeEditor } from './editor.js';
import type { RoomHost } from './lifecycle.js';
import { Markdown } from './markdown.js';
import type { BoardUpload, InterviewCode, InterviewCodeRun, InterviewJoin } from './types.js';
import { Whiteboard, type WhiteboardHandle } from './whiteboard.js';

/** What the room asks of its tools: a problem the interviewer set, and everything shared before the end. */
export interface ToolsHandle {
  showProblem(problem: { slug: string; title: string; statement: string }): void;
  shareBoardIfChanged(): Promise<void>;
  /** Shares the board and the code if either changed since last shared. */
  beforeEnd(): Promise<void>;
}

/** Code snapshots go to the transcript at most this often while the candidate writes (and on run and at the end). */
const SNAPSHOT_EVERY_MS = 60_000;
const SCRATCH = 'scratch';
/** A snapshot's PUT at most this long, so End (which shares the board first) cannot hang on a stalled connection. */
const UPLOAD_TIMEOUT_MS = 20_000;

const RUN_LABELS: Record<string, string> = {
  ok: 'Ran', compile_error: 'Compilation error', runtime_error: 'Runtime error', time_limit: 'Time limit exceeded',
  memory_limit: 'Memory limit exceeded', output_limit: 'Output limit exceeded', unavailable: 'Could not run',
};

/** The interview's code editor and whiteboard, side by side with the conversation. */
export function InterviewTools({ handle, host, base, config, onError, disabled }: {
  handle: { current: ToolsHandle | null }; host: RoomHost; base: string; config: InterviewJoin; onError(e: unknown): void; disabled: boolean;
}) {
  const { api } = host;
  const [tab, setTab] = useState<'code' | 'board'>('code');
  const [problem, setProblem] = useState<{ slug: string; title: string; statement: string } | null>(null);
  const [language, setLanguage] = useState(() => defaultLanguage(config.code.options));
  const [run, setRun] = useState<InterviewCodeRun | null>(null);
  const [running, setRunning] = useState(false);
  const [codeError, setCodeError] = useState<string | null>(null);
  const [sharing, setSharing] = useState(false);
  const [shared, setShared] = useState(0);
  const [boardError, setBoardError] = useState<string | null>(null);
  const editorHost = useRef<HTMLDivElement>(null);
  const editor = useRef<CodeEditor | null>(null);
  const board = useRef<WhiteboardHandle | null>(null);
  const latest = useRef({ run: () => {} });
  const busy = useRef(false);
  const sharingNow = useRef(false);
  const drafts = useMemo(() => new Drafts(`interview-${base}`), [base]);
  const state = useRef({ problem: SCRATCH, language, changed: false, lastSnapshot: 0 });
  state.current.language = language;

  const template = (id: string) => config.code.options.find((l) => l.id === id)?.starter_template ?? '';

  useEffect(() => {
    if (!editorHost.current) return;
    editor.current = createEditor(editorHost.current, {
      root: host.root,
      onChange: (doc) => {
        drafts.save(state.current.problem, state.current.language, doc);
        state.current.changed = true;
      },
      // The editor is made once: its keys call this render's runCode (the state it sees is current).
      onRun: () => latest.current.run(),
      onSubmit: () => latest.current.run(),
    });
    return () => {
      editor.current?.destroy();
      editor.current = null;
    };
  }, []);

  // The draft for the current problem and language (or the language's starter).
  useEffect(() => {
    const key = problem?.slug ?? SCRATCH;
    state.current.problem = key;
    editor.current?.load(drafts.load(key, language) ?? template(language), language);
  }, [problem, language]);

  // Snapshots while the candidate works, so the transcript follows the code (at most one a minute).
  useEffect(() => {
    const timer = setInterval(() => {
      if (state.current.changed && Date.now() - state.current.lastSnapshot >= SNAPSHOT_EVERY_MS && !disabled) void snapshot(false);
    }, 5000);
    return () => clearInterval(timer);
  }, [disabled]);

  const snapshot = async (withRun: boolean): Promise<InterviewCode | null> => {
    const source = editor.current?.text() ?? '';
    if (!source.trim()) return null;
    state.current.changed = false;
    state.current.lastSnapshot = Date.now();
    return api.post<InterviewCode>(`${base}/code`, { language: state.current.language, source, ...(withRun ? { run: true } : {}) });
  };

  const runCode = async () => {
    if (busy.current || disabled) return; // a ref: two quick Ctrl+Enters land before the state shows the first
    busy.current = true;
    setRunning(true);
    setCodeError(null);
    try {
      const result = await snapshot(true);
      if (result) setRun(result.run);
      else setCodeError('Write some code first.');
    } catch (e) {
      state.current.changed = true;
      setCodeError(e instanceof RoomError ? e.message : String(e));
      if (e instanceof RoomError && !e.transient && e.code !== 'capacity_unavailable' && e.status !== 400) onError(e);
    } finally {
      busy.current = false;
      setRunning(false);
    }
  };

  const shareBoard = async () => {
    if (sharingNow.current) return; // the 45-second share, End and a click may overlap
    sharingNow.current = true;
    setSharing(true);
    setBoardError(null);
    try {
      const shot = await board.current?.snapshot();
      if (!shot) return;
      if (shot.png.size > config.whiteboard.max_bytes) return setBoardError('The drawing is too large to share; clear part of it and try again.');
      const upload = await api.post<BoardUpload>(`${base}/board-upload-url`);
      const response = await putSigned(upload.upload_url, shot.png, 'image/png', UPLOAD_TIMEOUT_MS);
      if (!response.ok) throw new RoomError(response.status, 'upload_failed', 'The snapshot could not be uploaded. Try again.');
      board.current?.markShared(shot.version);
      setShared((n) => n + 1);
    } catch (e) {
      setBoardError(e instanceof RoomError ? e.message : 'The snapshot could not be uploaded. Try again.');
    } finally {
      sharingNow.current = false;
      setSharing(false);
    }
  };

  latest.current.run = () => void runCode();

  handle.current = {
    showProblem: (p) => {
      setProblem(p);
      setTab('code');
    },
    shareBoardIfChanged: async () => {
      if (board.current?.dirty()) await shareBoard();
    },
    beforeEnd: async () => {
      if (board.current?.dirty()) await shareBoard();
      if (state.current.changed) await snapshot(false).catch(() => null);
    },
  };

  return (
    <section class="prep-tools" aria-label="Code and whiteboard">
      <div class="prep-tabs" role="tablist" aria-label="Tools">
        <button type="button" role="tab" id="prep-tool-code" aria-controls="prep-tool-code-panel" aria-selected={tab === 'code'} class={`prep-tab${tab === 'code' ? ' prep-tab-active' : ''}`} onClick={() => setTab('code')}>Code</button>
        <button type="button" role="tab" id="prep-tool-board" aria-controls="prep-tool-board-panel" aria-selected={tab === 'board'} class={`prep-tab${tab === 'board' ? ' prep-tab-active' : ''}`} onClick={() => setTab('board')}>Whiteboard</button>
      </div>
      <div id="prep-tool-code-panel" role="tabpanel" aria-labelledby="prep-tool-code" class="prep-tool-panel" hidden={tab !== 'code'}>
        {problem ? (
          <details class="prep-interview-problem" open>
            <summary>{problem.title}</summary>
            <Markdown text={problem.statement} />
          </details>
        ) : <p class="prep-dim prep-interview-problem">Write code here whenever it helps; when a question needs code, the interviewer puts the problem here.</p>}
        <div class="prep-toolbar">
          <label class="prep-select">
            <span class="prep-visually-hidden">Language</span>
            <select value={language} aria-label="Language" onChange={(e) => setLanguage((e.target as HTMLSelectElement).value)}>
              {config.code.options.map((l) => <option key={l.id} value={l.id}>{l.name}</option>)}
            </select>
          </label>
          <span class="prep-spacer" />
          <button type="button" class="prep-button" onClick={() => void runCode()} disabled={running || disabled} aria-keyshortcuts="Control+Enter">{running ? 'Running…' : 'Run'}</button>
        </div>
        <div class="prep-editor" ref={editorHost} />
        <p id="prep-editor-help" class="prep-help">Ctrl+Enter runs your code and shares it with the interviewer. In the editor, Tab indents; press Esc then Tab to move on.</p>
        <div class="prep-output" aria-live="polite">
          {codeError ? <p class="prep-error" role="alert">{codeError}</p> : null}
          {run ? (
            <div class="prep-run">
              <span class={`prep-verdict ${run.status === 'ok' ? 'prep-ok' : 'prep-bad'}`}>{RUN_LABELS[run.status] ?? run.status}</span>
              <span class="prep-dim"> exit {run.exit_code ?? '–'} · {run.time_ms} ms</span>
              <div><span class="prep-label">Output</span><pre class="prep-stream">{run.stdout || ' '}</pre></div>
              {run.stderr ? <div><span class="prep-label">Errors</span><pre class="prep-stream prep-stderr">{run.stderr}</pre></div> : null}
            </div>
          ) : !codeError ? <p class="prep-dim">Run your code to see its output. The interviewer sees each run.</p> : null}
        </div>
      </div>
      <div id="prep-tool-board-panel" role="tabpanel" aria-labelledby="prep-tool-board" class="prep-tool-panel" hidden={tab !== 'board'}>
        <Whiteboard handle={board} onShare={() => void shareBoard()} sharing={sharing} disabled={disabled}
          shareNote={boardError ?? (shared ? `Shared ${shared} snapshot${shared === 1 ? '' : 's'}` : null)} />
      </div>
    </section>
  );
}
