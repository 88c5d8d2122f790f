import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { RoomError } from './api.js';
import { brandStyle } from './branding.js';
import { Brand } from './chrome.js';
import { Drafts } from './drafts.js';
import { endedBy, useLifecycle, type Ended, type RoomProps } from './lifecycle.js';
import { Markdown } from './markdown.js';
import { pollUntil } from './poll.js';
import { createPromptEditor, type PromptEditor } from './prompt-editor.js';
import { Clock, useProctoring, useServerClock } from './timed.js';
import type { PromptAttempt, PromptDetail, PromptTask } from './types.js';

const PROMPT_MAX_BYTES = 16 * 1024;
const gradedOrFailed = (a: PromptAttempt) => a.status === 'graded' || a.status === 'error';

interface TaskState {
  remaining: number;
  best: number | null;
  attempt: PromptAttempt | null;
  submitting: boolean;
  error: string | null;
}

/**
 * The prompt workspace: the task list, a task's brief and sample cases, a prompt editor that highlights the task's
 * {{variables}}, submit (graded in the background, polled), the last attempt's results (each sample case's output
 * and assertion verdicts; hidden cases pass or fail), attempts left, the clock and finish.
 */
export function PromptRoom({ host, sessionId, branding, title, lost }: RoomProps) {
  const { api } = host;
  const base = `/v1/prompt-engineering-sessions/${sessionId}`;
  const [detail, setDetail] = useState<PromptDetail | null>(null);
  const [selected, setSelected] = useState(0);
  const [states, setStates] = useState<Record<string, TaskState>>({});
  const editorHost = useRef<HTMLDivElement>(null);
  const editor = useRef<PromptEditor | null>(null);
  const dialog = useRef<HTMLDialogElement>(null);
  const alive = useRef(new AbortController());
  useEffect(() => () => alive.current.abort(), []);
  const drafts = useMemo(() => new Drafts(sessionId), [sessionId]);
  const clockRef = useRef<{ lostEnding(e: RoomError): Ended } | null>(null);
  const { ended, setEnded, banner, setBanner, fail, opening, finishing, finish, openingPage, endedPage } =
    useLifecycle({ host, sessionId, lost }, { lostEnding: (e) => clockRef.current?.lostEnding(e) ?? { error: e }, onEnd: () => drafts.clear() });
  const clock = useServerClock({ api, base, active: Boolean(detail) && !ended, setEnded, fail });
  clockRef.current = clock;
  useProctoring(host, base, Boolean(detail) && !ended);
  const task: PromptTask | undefined = detail?.tasks[selected];
  const state = task ? states[task.id] : undefined;
  const latestSubmit = useRef(() => {});
  const currentTask = useRef(''); // the task whose prompt the editor holds, for its draft

  const patch = (taskId: string, change: Partial<TaskState>) => setStates((all) => ({ ...all, [taskId]: { ...all[taskId]!, ...change } }));
  const settle = (taskId: string, a: PromptAttempt) => {
    setStates((all) => {
      const s = all[taskId]!;
      return { ...all, [taskId]: { ...s, attempt: a, best: a.score === null ? s.best : Math.max(s.best ?? 0, a.score), submitting: false } };
    });
    // An attempt the grader could not grade may give its attempt back: the service says how many are left.
    if (a.status === 'error') {
      api.post<PromptDetail>(`${base}/start`).then((d) => {
        const t = d.tasks.find((x) => x.id === taskId);
        if (t) patch(taskId, { remaining: t.attempts_remaining });
      }, () => undefined);
    }
  };

  useEffect(() => {
    let cancelled = false;
    api.post<PromptDetail>(`${base}/start`).then((d) => {
      if (cancelled) return;
      const end = endedBy(d.status);
      if (end) return setEnded(end);
      setDetail(d);
      setStates(Object.fromEntries(d.tasks.map((t) => [t.id, { remaining: t.attempts_remaining, best: t.best_score, attempt: null, submitting: false, error: null }])));
      clock.timed.current = d.duration_seconds !== null;
      host.emit('prep:started', { session_id: sessionId, tasks: d.tasks.length });
      for (const t of d.tasks) if (t.attempts_used > 0) void restore(t.id);
    }, (e) => !cancelled && fail(e));
    return () => { cancelled = true; };
  }, [opening]);

  useEffect(() => {
    if (!detail || !editorHost.current || editor.current) return;
    editor.current = createPromptEditor(editorHost.current, {
      root: host.root,
      onChange: (doc) => currentTask.current && drafts.save(currentTask.current, 'prompt', doc),
      onSubmit: () => latestSubmit.current(),
    });
    return () => {
      editor.current?.destroy();
      editor.current = null;
    };
  }, [detail, ended]);

  useEffect(() => {
    if (!task || !editor.current) return;
    currentTask.current = task.id;
    editor.current.load(drafts.load(task.id, 'prompt') ?? '', task.variables);
  }, [detail, selected, editor.current]);

  /** After a reload: each task's last attempt (polled again while it is being graded). */
  const restore = async (taskId: string) => {
    try {
      const list = await api.get<{ data: PromptAttempt[] }>(`${base}/attempts?task_id=${taskId}&limit=100`);
      const last = list.data.at(-1);
      if (!last) return;
      const pending = !gradedOrFailed(last);
      patch(taskId, { attempt: last, submitting: pending });
      if (!pending) return;
      const graded = await pollUntil<PromptAttempt>(api, `${base}/attempts/${last.id}`, gradedOrFailed, (x) => patch(taskId, { attempt: x }), alive.current.signal);
      if (graded) settle(taskId, graded);
    } catch {
      // the history stays on the service; the task opens as if untouched
    }
  };

  const submit = async () => {
    if (!task || !editor.current || !state || state.submitting) return;
    const prompt = editor.current.text();
    const missing = task.variables.filter((v) => !new RegExp(`\\{\\{\\s*${v}\\s*\\}\\}`).test(prompt));
    if (missing.length > 0) return patch(task.id, { error: `Use every variable of the task: ${missing.map((v) => `{{${v}}}`).join(', ')} is missing.` });
    if (new TextEncoder().encode(prompt).length > PROMPT_MAX_BYTES) return patch(task.id, { error: 'A prompt is at most 16 KiB.' });
    const id = task.id;
    patch(id, { submitting: true, error: null });
    try {
      const receipt = await api.post<PromptAttempt & { remaining: number }>(`${base}/attempts`, { task_id: id, prompt });
      patch(id, { remaining: receipt.remaining, attempt: { ...receipt, cases: [], craft: { score: 0, elements: [] }, execution: null } as PromptAttempt });
      host.emit('prep:submitted', { session_id: sessionId, task_id: id, attempt_id: receipt.id });
      const graded = await pollUntil<PromptAttempt>(api, `${base}/attempts/${receipt.id}`, gradedOrFailed, (x) => patch(id, { attempt: x }), alive.current.signal);
      if (graded) settle(id, graded);
    } catch (e) {
      patch(id, { submitting: false, error: e instanceof RoomError && !e.transient && e.code !== 'invalid_session_token' ? e.message : null });
      if (!(e instanceof RoomError) || e.transient || e.code === 'invalid_session_token' || e.code === 'session_already_finalized') fail(e);
    }
  };
  latestSubmit.current = () => void submit();

  if (ended) return endedPage(branding);
  if (!detail || !task || !state) return openingPage(branding);

  const passed = detail.tasks.filter((t) => (states[t.id]?.best ?? -1) >= t.pass_threshold).length;

  return (
    <div class="prep-room prep-prompt-room" style={brandStyle(branding)}>
      <header class="prep-header">
        <Brand branding={branding} />
        <span class="prep-title">{title}</span>
        <Clock remaining={clock.remaining} timed={clock.timed.current} />
        <button type="button" class="prep-button prep-finish" onClick={() => dialog.current?.showModal()}>Finish</button>
      </header>
      {banner ? <div class="prep-banner" role="alert">{banner}<button type="button" class="prep-link" onClick={() => setBanner(null)}>Dismiss</button></div> : null}
      {clock.outOfTime ? <div class="prep-banner" role="alert">Time is up. Your attempts so far are being graded.</div> : null}
      <div class="prep-body">
        <section class="prep-problems" aria-label="Tasks">
          <div class="prep-tabs" role="tablist" aria-label="Tasks">
            {detail.tasks.map((t, i) => {
              const s = states[t.id]!;
              const mark = s.best !== null && s.best >= t.pass_threshold ? '✓' : s.attempt ? '•' : '';
              return (
                <button key={t.id} type="button" role="tab" id={`prep-tab-${i}`} aria-selected={i === selected} aria-controls="prep-statement"
                  class={`prep-tab${i === selected ? ' prep-tab-active' : ''}`} onClick={() => setSelected(i)}>
                  <span>{i + 1}. {t.title}</span>{mark ? <span class="prep-tab-mark" aria-label={mark === '✓' ? 'passed' : 'attempted'}>{mark}</span> : null}
                </button>
              );
            })}
          </div>
          <div class="prep-statement" id="prep-statement" role="tabpanel" aria-labelledby={`prep-tab-${selected}`} tabIndex={0}>
            <h2>{task.title}</h2>
            <p class="prep-meta">
              <span class={`prep-pill prep-pill-${task.difficulty}`}>{task.difficulty}</span>
              <span>Pass at {task.pass_threshold} of 100</span>
              <span>{task.hidden_case_count} hidden cases</span>
            </p>
            <Markdown text={task.brief} />
            <h3>Variables</h3>
            <p>{task.variables.map((v) => <code key={v} class="prep-var">{`{{${v}}}`}</code>)}</p>
            {task.sample_cases.map((c) => (
              <div class="prep-example" key={c.name}>
                <h3>Sample case: {c.name}</h3>
                {Object.entries(c.vars).map(([k, v]) => <div key={k}><span class="prep-label">{k}</span><pre class="prep-stream">{v}</pre></div>)}
              </div>
            ))}
          </div>
        </section>
        <section class="prep-workspace" aria-label="Your prompt">
          <div class="prep-toolbar">
            <span class="prep-label">Prompt</span>
            <span class="prep-spacer" />
            <span class="prep-attempts" aria-live="polite">{state.remaining} {state.remaining === 1 ? 'attempt' : 'attempts'} left</span>
            <button type="button" class="prep-button" onClick={() => void submit()} disabled={state.submitting || state.remaining <= 0 || clock.outOfTime} aria-keyshortcuts="Control+Enter">
              {state.submitting ? 'Grading…' : 'Submit'}
            </button>
          </div>
          <div class="prep-editor prep-prompt-editor" ref={editorHost} />
          <p id="prep-prompt-help" class="prep-help">Each {'{{variable}}'} is replaced by a case's value; the prompt runs once per case. Ctrl+Enter submits.</p>
          <div class="prep-output">
            <div class="prep-output-body"><AttemptResults state={state} task={task} passed={passed} total={detail.tasks.length} /></div>
          </div>
        </section>
      </div>
      <dialog ref={dialog} class="prep-dialog" aria-labelledby="prep-finish-title">
        <h2 id="prep-finish-title">Finish the assessment?</h2>
        <p>You have passed {passed} of {detail.tasks.length} tasks so far. Once you finish you cannot submit more prompts.</p>
        <div class="prep-dialog-actions">
          <button type="button" class="prep-button prep-secondary" onClick={() => dialog.current?.close()} disabled={finishing}>Keep working</button>
          <button type="button" class="prep-button" onClick={() => void finish(`${base}/finalize`, dialog.current)} disabled={finishing}>{finishing ? 'Finishing…' : 'Finish now'}</button>
        </div>
      </dialog>
    </div>
  );
}

function AttemptResults({ state, task, passed, total }: { state: TaskState; task: PromptTask; passed: number; total: number }) {
  const a = state.attempt;
  return (
    <div class="prep-results" aria-live="polite">
      {state.error ? <p class="prep-error" role="alert">{state.error}</p> : null}
      {a ? (
        <div class="prep-submission">
          <span class="prep-label">Last attempt</span>
          {a.status === 'error' ? <span class="prep-error">This attempt could not be graded ({a.error}). Please submit again; the first two such attempts at a task do not count.</span>
            : a.status !== 'graded' ? <span class="prep-verdict prep-pending">Grading…</span>
              : a.execution === 'unavailable' ? <span class="prep-verdict prep-pending">Not run</span>
                : <>
                    <span class={`prep-verdict ${a.passed ? 'prep-ok' : 'prep-bad'}`}>{a.passed ? 'Passed' : 'Not passed'}</span>
                    <span>Score {a.score} of 100 · {a.hidden_cases_passed} of {a.hidden_cases_total} hidden cases passed</span>
                  </>}
          <span class="prep-solved">{passed} of {total} tasks passed · best {state.best ?? '–'}</span>
        </div>
      ) : <p class="prep-dim">Submit a prompt to see how it does on the sample cases; hidden cases then say only pass or fail.</p>}
      {a?.status === 'graded' && a.execution === 'unavailable' ? <p class="prep-help">{a.execution_reason}</p> : null}
      {a?.status === 'graded' ? (
        <table class="prep-cases">
          <caption class="prep-visually-hidden">Results per case</caption>
          <thead><tr><th scope="col">Case</th><th scope="col">Result</th><th scope="col">Points</th></tr></thead>
          <tbody>
            {a.cases.map((c) => (
              <tr key={c.name} class={c.passed ? 'prep-case-ok' : 'prep-case-bad'}>
                <td>
                  {c.kind === 'sample' ? (
                    <details class="prep-case">
                      <summary>{c.name}</summary>
                      <span class="prep-label">Output</span><pre class="prep-stream">{c.output}{c.output_truncated ? '\n… (cut for display)' : ''}</pre>
                      <ul class="prep-assertions">
                        {c.assertions?.map((x, i) => <li key={i} class={x.passed ? 'prep-ok' : 'prep-bad'}><strong>{x.passed ? '✓' : '✗'} {x.type}</strong> {x.reason}</li>)}
                      </ul>
                      <span class="prep-label">Prompt as sent</span><pre class="prep-stream">{c.rendered_prompt}</pre>
                    </details>
                  ) : <span>{c.name}</span>}
                </td>
                <td><span class={`prep-verdict ${c.passed ? 'prep-ok' : 'prep-bad'}`}>{c.passed ? 'Pass' : 'Fail'}</span></td>
                <td>{Math.round(c.points * 10) / 10} / {c.points_possible}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
      {a && a.craft.elements.length > 0 ? (
        <details class="prep-craft">
          <summary>Prompt craft {a.craft.score} of 100 (a secondary measure)</summary>
          <ul>{a.craft.elements.map((e) => <li key={e.key} class={e.found ? 'prep-ok' : 'prep-dim'}>{e.found ? '✓' : '○'} {e.name}: {e.advice}</li>)}</ul>
        </details>
      ) : null}
      <p class="prep-dim">Pass mark {task.pass_threshold}.</p>
    </div>
  );
}
