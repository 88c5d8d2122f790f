import { useCallback, useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { RoomError } from './api.js';
import { brandStyle } from './branding.js';
import { Brand } from './chrome.js';
import { Drafts } from './drafts.js';
import { createEditor, defaultLanguage, type CodeEditor } from './editor.js';
import { Markdown } from './markdown.js';
import { endedBy, useLifecycle, type Ended, type RoomProps } from './lifecycle.js';
import { VERDICT_LABELS } from './messages.js';
import { pollUntil } from './poll.js';
import { Clock, useProctoring, useServerClock } from './timed.js';
import type { CodingDetail, RunResult, SessionProblem, Submission } from './types.js';

export type { RoomHost } from './lifecycle.js';

const judgedOrFailed = (s: Submission) => s.status === 'judged' || s.status === 'error';

interface ProblemState {
  attemptsRemaining: number;
  /** An accepted submission was seen (a later wrong one does not unsolve the problem). */
  solved: boolean;
  run: RunResult | null;
  running: boolean;
  submission: Submission | null;
  submitting: boolean;
  error: string | null;
}

/** The coding room: problems, editor, run, submit, clock and finish, shared by the hosted page and the widget. */
export function CodingRoom({ host, sessionId, branding, title, lost }: RoomProps) {
  const { api } = host;
  const base = `/v1/coding-sessions/${sessionId}`;
  const [detail, setDetail] = useState<CodingDetail | null>(null);
  const [selected, setSelected] = useState(0);
  const [states, setStates] = useState<Record<string, ProblemState>>({});
  const [language, setLanguage] = useState<string>('');
  const [stdin, setStdin] = useState('');
  const [useStdin, setUseStdin] = useState(false);
  const [outputTab, setOutputTab] = useState<'result' | 'input'>('result');
  const alive = useRef(new AbortController());
  useEffect(() => () => alive.current.abort(), []);
  const editorHost = useRef<HTMLDivElement>(null);
  const editor = useRef<CodeEditor | null>(null);
  const dialog = useRef<HTMLDialogElement>(null);
  const drafts = useMemo(() => new Drafts(sessionId), [sessionId]);
  const latest = useRef({ run: () => {}, submit: () => {} });
  const currentRef = useRef<{ problemId: string | null; language: string | null }>({ problemId: null, language: null });

  const problem: SessionProblem | undefined = detail?.problems[selected];
  const state = problem ? states[problem.problem.id] : undefined;

  const patch = useCallback((problemId: string, change: Partial<ProblemState>) => {
    setStates((all) => ({ ...all, [problemId]: { ...all[problemId]!, ...change } }));
  }, []);

  /** A submission's final state; an accepted one solves the problem for good. */
  const recordJudged = (problemId: string, judged: Submission) =>
    setStates((all) => ({ ...all, [problemId]: { ...all[problemId]!, submission: judged, submitting: false, solved: all[problemId]!.solved || judged.verdict === 'ACCEPTED' } }));

  // A token lost after the local clock ran out (a laptop that slept through the deadline) means time is up.
  const clockRef = useRef<{ lostEnding(e: RoomError): Ended } | null>(null);
  const { ended, setEnded, banner, setBanner, fail, opening, finishing, finish: finishWith, openingPage, endedPage } =
    useLifecycle({ host, sessionId, lost }, { lostEnding: (e) => clockRef.current?.lostEnding(e) ?? { error: e }, onEnd: () => drafts.clear() });
  const clock = useServerClock({ api, base, active: Boolean(detail) && !ended, setEnded, fail });
  clockRef.current = clock;
  const { remaining, timed } = clock;

  // Open the room: start (idempotent: a reload or a second device gets the same clock) and load the problems.
  useEffect(() => {
    let cancelled = false;
    api.post<CodingDetail>(`${base}/start`).then((d) => {
      if (cancelled) return;
      const end = endedBy(d.status);
      if (end) return setEnded(end);
      setDetail(d);
      setStates(Object.fromEntries(d.problems.map((p) => [p.problem.id, {
        attemptsRemaining: p.attempts_remaining, solved: false, run: null, running: false, submission: null, submitting: false, error: null,
      }])));
      timed.current = d.duration_seconds !== null;
      host.emit('prep:started', { session_id: sessionId, problems: d.problems.length });
      for (const p of d.problems) if (p.attempts_used > 0) void restoreSubmissions(p.problem.id);
    }, (e) => !cancelled && fail(e));
    return () => { cancelled = true; };
  }, [opening]);

  useProctoring(host, base, Boolean(detail) && !ended);

  // The editor, made once the problems are in.
  useEffect(() => {
    if (!detail || !editorHost.current || editor.current) return;
    editor.current = createEditor(editorHost.current, {
      root: host.root,
      onChange: (doc) => {
        const current = currentRef.current;
        if (current.problemId && current.language) drafts.save(current.problemId, current.language, doc);
      },
      onRun: () => latest.current.run(),
      onSubmit: () => latest.current.submit(),
    });
    return () => {
      editor.current?.destroy();
      editor.current = null;
    };
  }, [detail, ended]);

  // Load the selected problem's draft (or the language's starter) into the editor.
  useEffect(() => {
    if (!detail || !problem || !editor.current) return;
    const lang = offered(detail, language) ?? offered(detail, drafts.lastLanguage(problem.problem.id)) ?? defaultLanguage(detail.languages);
    if (lang !== language) return setLanguage(lang);
    const template = detail.languages.find((l) => l.id === lang)?.starter_template ?? '';
    editor.current.load(drafts.load(problem.problem.id, lang) ?? template, lang);
    currentRef.current = { problemId: problem.problem.id, language: lang };
    drafts.rememberLanguage(problem.problem.id, lang);
  }, [detail, selected, language, editor.current]);

  const { outOfTime } = clock;

  /**
   * After a reload: each problem's last submission and whether any was accepted, from the service; a
   * submission still being judged is polled again.
   */
  const restoreSubmissions = async (problemId: string) => {
    try {
      const list = await api.get<{ data: Submission[] }>(`${base}/submissions?problem_id=${problemId}&limit=100`);
      const last = list.data.at(-1);
      if (!last) return;
      const solved = list.data.some((x) => x.verdict === 'ACCEPTED');
      const pending = last.status === 'queued' || last.status === 'running';
      setStates((all) => ({ ...all, [problemId]: { ...all[problemId]!, submission: last, solved, submitting: pending } }));
      if (!pending) return;
      const judged = await pollUntil<Submission>(api, `${base}/submissions/${last.id}`, judgedOrFailed, (x) => patch(problemId, { submission: x }), alive.current.signal);
      if (judged) recordJudged(problemId, judged);
    } catch {
      // a history that cannot be read leaves the problem as if untouched; the service still has everything
    }
  };

  // Each problem reopens in the language it was last written in.
  const selectProblem = (i: number) => {
    const remembered = detail ? offered(detail, drafts.lastLanguage(detail.problems[i]!.problem.id)) : null;
    if (remembered) setLanguage(remembered);
    setSelected(i);
  };

  // What the editor shows (set once a draft is loaded), not the render state, which may be a frame ahead.
  const shown = () => {
    const { problemId, language: lang } = currentRef.current;
    return problemId && lang && editor.current ? { id: problemId, lang, source: editor.current.text() } : null;
  };

  const run = async () => {
    const current = shown();
    if (!current || states[current.id]?.running || outOfTime) return;
    const { id } = current;
    patch(id, { running: true, error: null });
    setOutputTab('result');
    try {
      const result = await api.post<RunResult>(`${base}/run`, {
        problem_id: id, language: current.lang, source: current.source, ...(useStdin ? { stdin } : {}),
      });
      patch(id, { run: result, running: false });
    } catch (e) {
      patch(id, { running: false, error: e instanceof RoomError ? e.message : String(e) });
      fail(e);
    }
  };

  const submit = async () => {
    const current = shown();
    const before = current ? states[current.id] : undefined;
    if (!current || !before || before.submitting || before.attemptsRemaining <= 0 || outOfTime) return;
    const { id } = current;
    patch(id, { submitting: true, error: null });
    try {
      const receipt = await api.post<Submission>(`${base}/submissions`, { problem_id: id, language: current.lang, source: current.source });
      patch(id, { submission: receipt, attemptsRemaining: receipt.remaining ?? before.attemptsRemaining - 1 });
      host.emit('prep:submission', { session_id: sessionId, problem_id: id, submission_id: receipt.id, status: receipt.status });
      const judged = await pollUntil<Submission>(api, `${base}/submissions/${receipt.id}`, judgedOrFailed, (s) => patch(id, { submission: s }), alive.current.signal);
      if (!judged) return; // the room closed while judging
      recordJudged(id, judged);
      host.emit('prep:progress', {
        session_id: sessionId, problem_id: id, submission_id: judged.id, status: judged.status, verdict: judged.verdict,
        cases_passed: judged.cases_passed, cases_total: judged.cases_total,
      });
    } catch (e) {
      patch(id, { submitting: false, error: e instanceof RoomError ? e.message : String(e) });
      fail(e);
    }
  };
  latest.current = { run: () => void run(), submit: () => void submit() };

  const finish = () => finishWith(`${base}/finalize`, dialog.current);

  if (ended) return endedPage(branding);
  if (!detail || !problem || !state) return openingPage(branding);

  const solved = Object.values(states).filter((s) => s.solved).length;

  return (
    <div class="prep-room" style={brandStyle(branding)}>
      <header class="prep-header">
        <Brand branding={branding} />
        <span class="prep-title">{title}</span>
        <Clock remaining={remaining} timed={timed.current} />
        <button type="button" class="prep-button prep-finish" onClick={() => dialog.current?.showModal()}>Finish</button>
      </header>
      {banner ? <div class="prep-banner" role="alert">{banner}<button type="button" class="prep-link" onClick={() => setBanner(null)}>Dismiss</button></div> : null}
      {outOfTime ? <div class="prep-banner" role="alert">Time is up. Your submissions so far are being scored.</div> : null}
      <div class="prep-body">
        <section class="prep-problems" aria-label="Problems">
          <div class="prep-tabs" role="tablist" aria-label="Problems">
            {detail.problems.map((p, i) => {
              const s = states[p.problem.id]!;
              const mark = s.solved ? '✓' : s.submission?.status === 'judged' ? '•' : '';
              return (
                <button key={p.problem.id} type="button" role="tab" id={`prep-tab-${i}`} aria-selected={i === selected} aria-controls="prep-statement"
                  class={`prep-tab${i === selected ? ' prep-tab-active' : ''}`} onClick={() => selectProblem(i)}>
                  <span>{i + 1}. {p.problem.title}</span>{mark ? <span class="prep-tab-mark" aria-label={mark === '✓' ? 'solved' : 'attempted'}>{mark}</span> : null}
                </button>
              );
            })}
          </div>
          <div class="prep-statement" id="prep-statement" role="tabpanel" aria-labelledby={`prep-tab-${selected}`} tabIndex={0}>
            <h2>{problem.problem.title}</h2>
            <p class="prep-meta">
              <span class={`prep-pill prep-pill-${problem.problem.difficulty}`}>{problem.problem.difficulty}</span>
              <span>Time limit {problem.problem.time_limit_ms / 1000} s</span>
              <span>Memory {problem.problem.memory_limit_mb} MB</span>
            </p>
            <Markdown text={problem.problem.statement} />
            <h3>Input</h3>
            <Markdown text={problem.problem.input_format} />
            <h3>Output</h3>
            <Markdown text={problem.problem.output_format} />
            {problem.problem.constraints ? <><h3>Constraints</h3><Markdown text={problem.problem.constraints} /></> : null}
            {problem.problem.examples.map((ex, i) => (
              <div class="prep-example" key={i}>
                <h3>Example {i + 1}</h3>
                <div class="prep-example-io">
                  <div><span class="prep-label">Input</span><pre>{ex.input}</pre></div>
                  <div><span class="prep-label">Output</span><pre>{ex.output}</pre></div>
                </div>
                {ex.explanation ? <p class="prep-explanation">{ex.explanation}</p> : null}
              </div>
            ))}
          </div>
        </section>
        <section class="prep-workspace" aria-label="Your solution">
          <div class="prep-toolbar">
            <label class="prep-select">
              <span class="prep-visually-hidden">Language</span>
              <select value={language} onChange={(e) => setLanguage((e.target as HTMLSelectElement).value)} aria-label="Language">
                {detail.languages.map((l) => <option key={l.id} value={l.id}>{l.name}</option>)}
              </select>
            </label>
            <button type="button" class="prep-link" onClick={() => {
              const template = detail.languages.find((l) => l.id === language)?.starter_template ?? '';
              if (editor.current && confirmReset(host.root)) editor.current.load(template, language), drafts.save(problem.problem.id, language, template);
            }}>Reset</button>
            <span class="prep-spacer" />
            <span class="prep-attempts" aria-live="polite">{state.attemptsRemaining} {state.attemptsRemaining === 1 ? 'attempt' : 'attempts'} left</span>
            <button type="button" class="prep-button prep-secondary" onClick={() => void run()} disabled={state.running || outOfTime} aria-keyshortcuts="Control+Enter">
              {state.running ? 'Running…' : 'Run'}
            </button>
            <button type="button" class="prep-button" onClick={() => void submit()} disabled={state.submitting || state.attemptsRemaining <= 0 || outOfTime} aria-keyshortcuts="Control+Shift+Enter">
              {state.submitting ? 'Judging…' : 'Submit'}
            </button>
          </div>
          <div class="prep-editor" ref={editorHost} />
          <p id="prep-editor-help" class="prep-help">Ctrl+Enter runs on the examples, Ctrl+Shift+Enter submits. In the editor, Tab indents; press Esc then Tab to move on.</p>
          <div class="prep-output">
            <div class="prep-tabs prep-output-tabs" role="tablist" aria-label="Output">
              <button type="button" role="tab" aria-selected={outputTab === 'result'} class={`prep-tab${outputTab === 'result' ? ' prep-tab-active' : ''}`} onClick={() => setOutputTab('result')}>Result</button>
              <button type="button" role="tab" aria-selected={outputTab === 'input'} class={`prep-tab${outputTab === 'input' ? ' prep-tab-active' : ''}`} onClick={() => setOutputTab('input')}>Custom input</button>
            </div>
            <div class="prep-output-body" role="tabpanel">
              {outputTab === 'input' ? (
                <div class="prep-stdin">
                  <label class="prep-check"><input type="checkbox" checked={useStdin} onChange={(e) => setUseStdin((e.target as HTMLInputElement).checked)} /> Run with this input instead of the examples</label>
                  <textarea aria-label="Custom input" value={stdin} onInput={(e) => setStdin((e.target as HTMLTextAreaElement).value)} spellcheck={false} rows={6} />
                </div>
              ) : (
                <Results state={state} solved={solved} total={detail.problems.length} />
              )}
            </div>
          </div>
        </section>
      </div>
      <dialog ref={dialog} class="prep-dialog" aria-labelledby="prep-finish-title">
        <h2 id="prep-finish-title">Finish the assessment?</h2>
        <p>You have solved {solved} of {detail.problems.length} problems. Once you finish you cannot change your answers.</p>
        <div class="prep-dialog-actions">
          <button type="button" class="prep-button prep-secondary" onClick={() => dialog.current?.close()} disabled={finishing}>Keep working</button>
          <button type="button" class="prep-button" onClick={() => void finish()} disabled={finishing}>{finishing ? 'Finishing…' : 'Finish now'}</button>
        </div>
      </dialog>
    </div>
  );
}

/** `id` when the room offers that language, else null. */
const offered = (detail: CodingDetail, id: string | null): string | null => (id && detail.languages.some((l) => l.id === id) ? id : null);

function confirmReset(root: Document | ShadowRoot): boolean {
  const win = root instanceof Document ? root.defaultView : root.host.ownerDocument.defaultView;
  return win?.confirm('Replace your code with the starter template?') ?? true;
}

function VerdictBadge({ verdict }: { verdict: string }) {
  const ok = verdict === 'ACCEPTED' || verdict === 'COMPLETED';
  const pending = verdict === 'PENDING';
  return <span class={`prep-verdict ${ok ? 'prep-ok' : pending ? 'prep-pending' : 'prep-bad'}`}>{VERDICT_LABELS[verdict] ?? verdict}</span>;
}

function Results({ state, solved, total }: { state: ProblemState; solved: number; total: number }) {
  const { run, submission, error } = state;
  return (
    <div class="prep-results" aria-live="polite">
      {error ? <p class="prep-error" role="alert">{error}</p> : null}
      {submission ? (
        <div class="prep-submission">
          <span class="prep-label">Last submission</span>
          {submission.status === 'judged' ? (
            <>
              <VerdictBadge verdict={submission.verdict} />
              <span>{submission.cases_passed} of {submission.cases_total} test cases passed</span>
            </>
          ) : submission.status === 'error' ? (
            <span class="prep-error">This submission could not be judged because of a problem on our side. Please submit again.</span>
          ) : <VerdictBadge verdict="PENDING" />}
          <span class="prep-solved">{solved} of {total} solved</span>
        </div>
      ) : null}
      {submission?.compile && !submission.compile.ok ? <pre class="prep-stream">{submission.compile.output}</pre> : null}
      {run ? (
        <div class="prep-run">
          <span class="prep-label">Run</span> <VerdictBadge verdict={run.verdict} />
          {run.compile && !run.compile.ok ? <pre class="prep-stream">{run.compile.output}</pre> : null}
          {run.results.map((c) => (
            <details key={c.name} class="prep-case" open={c.verdict !== 'ACCEPTED'}>
              <summary><VerdictBadge verdict={c.verdict} /> {c.name} <span class="prep-dim">{c.time_ms} ms · {Math.round(c.memory_kb / 1024)} MB</span></summary>
              {c.input !== undefined ? <div><span class="prep-label">Input</span><pre class="prep-stream">{c.input}</pre></div> : null}
              {c.expected_output !== undefined ? <div><span class="prep-label">Expected</span><pre class="prep-stream">{c.expected_output}</pre></div> : null}
              <div><span class="prep-label">Your output</span><pre class="prep-stream">{c.stdout || ' '}{c.stdout_truncated ? '\n… (truncated)' : ''}</pre></div>
              {c.stderr ? <div><span class="prep-label">Errors</span><pre class="prep-stream prep-stderr">{c.stderr}{c.stderr_truncated ? '\n… (truncated)' : ''}</pre></div> : null}
            </details>
          ))}
        </div>
      ) : null}
      {!run && !submission && !error ? <p class="prep-dim">Run your code to see its output on the examples, or submit it to be judged on every test case.</p> : null}
    </div>
  );
}
