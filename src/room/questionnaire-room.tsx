import { useEffect, useRef, useState } from 'preact/hooks';
import { RoomError } from './api.js';
import { brandStyle } from './branding.js';
import { Brand } from './chrome.js';
import { endedBy, useLifecycle, type RoomProps } from './lifecycle.js';
import type { PsychometricDetail } from './types.js';

export const ITEMS_PER_PAGE = 10;
const SAVE_RETRIES = 4;

/**
 * The psychometric questionnaire: items a page at a time, each a labelled radio group of the five answers. Keys 1–5
 * answer the focused item and move on; ↑/↓ move between items (←/→ change the answer, as radios do). Every answer
 * is saved as it is given (and retried), so a reload or another device comes back to the same place.
 */
export function QuestionnaireRoom({ host, sessionId, branding, title, lost }: RoomProps) {
  const { api } = host;
  const base = `/v1/psychometric-sessions/${sessionId}`;
  const { ended, setEnded, banner, setBanner, fail, opening, finishing, finish, openingPage, endedPage } = useLifecycle({ host, sessionId, lost });
  const [detail, setDetail] = useState<PsychometricDetail | null>(null);
  const [answers, setAnswers] = useState<Record<string, number>>({});
  const [page, setPage] = useState(0);
  const [saving, setSaving] = useState(0);
  /** What the service holds for each item: an answer that could not be saved goes back to it. */
  const stored = useRef<Record<string, number>>({});
  const dialog = useRef<HTMLDialogElement>(null);
  const list = useRef<HTMLOListElement>(null);

  useEffect(() => {
    let cancelled = false;
    api.post<PsychometricDetail>(`${base}/start`).then((d) => {
      if (cancelled) return;
      const end = endedBy(d.status);
      if (end) return setEnded(end);
      const saved = Object.fromEntries(d.answers.map((a) => [a.item_id, a.value]));
      setDetail(d);
      stored.current = { ...saved };
      setAnswers(saved);
      // Back where the candidate left off: the page of the first unanswered item.
      const first = d.items.findIndex((i) => saved[i.id] === undefined);
      setPage(Math.floor(Math.max(0, first) / ITEMS_PER_PAGE));
      host.emit('prep:started', { session_id: sessionId, items: d.item_count });
    }, (e) => !cancelled && fail(e));
    return () => { cancelled = true; };
  }, [opening]);

  /** The answer last given to each statement, and the save of it under way (saves of one statement go in order). */
  const given = useRef<Record<string, number>>({});
  const saves = useRef(new Map<string, Promise<void>>());

  /**
   * Saves one answer, retrying what is worth retrying; the answer stays shown meanwhile. It waits for the save of an
   * earlier answer to the same statement, and is not sent (nor retried) once a later answer supersedes it: a retry
   * landing after the newer save would otherwise leave the sheet holding an answer the room no longer shows.
   */
  const save = (itemId: string, value: number) => {
    setSaving((n) => n + 1); // counted while it waits too: Submit stays off until every answer given is saved
    const earlier = saves.current.get(itemId) ?? Promise.resolve();
    const done = earlier.then(() => send(itemId, value)).finally(() => {
      setSaving((n) => n - 1);
      if (saves.current.get(itemId) === done) saves.current.delete(itemId);
    });
    saves.current.set(itemId, done);
    return done;
  };

  const send = async (itemId: string, value: number) => {
    try {
      for (let attempt = 0; ; attempt++) {
        if (given.current[itemId] !== value) return; // answered again: that save decides
        try {
          await api.post(`${base}/progress`, { answers: [{ item_id: itemId, value }] });
          stored.current[itemId] = value;
          setBanner(null);
          host.emit('prep:progress', { session_id: sessionId, item_id: itemId, value });
          return;
        } catch (e) {
          if (!(e instanceof RoomError) || !e.transient || attempt >= SAVE_RETRIES) throw e;
          await new Promise((r) => setTimeout(r, 500 * 2 ** attempt));
        }
      }
    } catch (e) {
      // Not saved: the statement must not look answered (a reload would show it otherwise, and submit is refused).
      setAnswers((all) => {
        if (all[itemId] !== value) return all; // answered again meanwhile: that save decides
        const { [itemId]: _, ...rest } = all;
        const kept = stored.current[itemId];
        return kept === undefined ? rest : { ...rest, [itemId]: kept };
      });
      if (e instanceof RoomError && e.transient) setBanner('Your last answer could not be saved. Check your connection and answer that statement again.');
      else fail(e);
    }
  };

  const answer = (itemId: string, value: number) => {
    given.current[itemId] = value;
    setAnswers((all) => ({ ...all, [itemId]: value }));
    void save(itemId, value);
  };

  const focusItem = (index: number) => {
    const fieldsets = list.current?.querySelectorAll<HTMLFieldSetElement>('fieldset');
    const target = fieldsets?.[index];
    if (!target) return;
    const input = target.querySelector<HTMLInputElement>('input:checked') ?? target.querySelector<HTMLInputElement>('input');
    input?.focus();
  };

  const onKey = (e: KeyboardEvent, index: number, itemId: string) => {
    if (e.ctrlKey || e.metaKey || e.altKey) return;
    if (/^[1-5]$/.test(e.key)) {
      e.preventDefault();
      answer(itemId, Number(e.key));
      focusItem(index + 1);
    } else if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
      e.preventDefault();
      focusItem(index + (e.key === 'ArrowDown' ? 1 : -1));
    }
  };

  const submit = () => finish(`${base}/submit`, dialog.current);

  if (ended) return endedPage(branding);
  if (!detail) return openingPage(branding);

  const pages = Math.ceil(detail.items.length / ITEMS_PER_PAGE);
  const shown = detail.items.slice(page * ITEMS_PER_PAGE, (page + 1) * ITEMS_PER_PAGE);
  const answered = detail.items.filter((i) => answers[i.id] !== undefined).length;
  const firstMissing = detail.items.findIndex((i) => answers[i.id] === undefined);
  const complete = firstMissing === -1;

  return (
    <div class="prep-room prep-questionnaire" style={brandStyle(branding)}>
      <header class="prep-header">
        <Brand branding={branding} />
        <span class="prep-title">{title}</span>
        <span class="prep-progress-text" aria-live="polite">{answered} of {detail.items.length} answered{saving > 0 ? ' · saving…' : ''}</span>
      </header>
      <div class="prep-progress" role="progressbar" aria-label="Answered" aria-valuemin={0} aria-valuemax={detail.items.length} aria-valuenow={answered}>
        <div class="prep-progress-bar" style={{ width: `${(100 * answered) / detail.items.length}%` }} />
      </div>
      {banner ? <div class="prep-banner" role="alert">{banner}<button type="button" class="prep-link" onClick={() => setBanner(null)}>Dismiss</button></div> : null}
      <main class="prep-questions">
        <p class="prep-help">Describe yourself as you generally are now, not as you wish to be. Press 1–5 to answer the selected statement, ↑ and ↓ to move between statements.</p>
        <ol class="prep-items" ref={list} start={page * ITEMS_PER_PAGE + 1} lang={detail.language}>
          {shown.map((item, i) => {
            const index = page * ITEMS_PER_PAGE + i;
            return (
              <li key={item.id} class={`prep-item${answers[item.id] === undefined ? '' : ' prep-item-done'}`}>
                <fieldset onKeyDown={(e) => onKey(e as unknown as KeyboardEvent, i, item.id)}>
                  <legend><span class="prep-visually-hidden">Statement {index + 1} of {detail.items.length}: </span>{item.text}</legend>
                  <div class="prep-choices">
                    {detail.choices.map((c) => (
                      <label key={c.value} class={`prep-choice${answers[item.id] === c.value ? ' prep-choice-on' : ''}`}>
                        <input type="radio" name={`item-${item.id}`} value={c.value} checked={answers[item.id] === c.value}
                          onChange={() => answer(item.id, c.value)} />
                        <span class="prep-choice-key" aria-hidden="true">{c.value}</span>
                        <span>{c.label}</span>
                      </label>
                    ))}
                  </div>
                </fieldset>
              </li>
            );
          })}
        </ol>
        <nav class="prep-pager" aria-label="Pages">
          <button type="button" class="prep-button prep-secondary" disabled={page === 0} onClick={() => { setPage(page - 1); scrollTo(0, 0); }}>Previous</button>
          <span class="prep-dim">Page {page + 1} of {pages}</span>
          {page < pages - 1
            ? <button type="button" class="prep-button" onClick={() => { setPage(page + 1); scrollTo(0, 0); }}>Next</button>
            : <button type="button" class="prep-button" onClick={() => (complete ? dialog.current?.showModal() : setPage(Math.floor(firstMissing / ITEMS_PER_PAGE)))}>
                {complete ? 'Submit' : `Answer the ${detail.items.length - answered} left`}
              </button>}
        </nav>
      </main>
      <dialog ref={dialog} class="prep-dialog" aria-labelledby="prep-submit-title">
        <h2 id="prep-submit-title">Submit your answers?</h2>
        <p>You have answered all {detail.items.length} statements. Once you submit you cannot change your answers.</p>
        <div class="prep-dialog-actions">
          <button type="button" class="prep-button prep-secondary" onClick={() => dialog.current?.close()} disabled={finishing}>Review my answers</button>
          <button type="button" class="prep-button" onClick={() => void submit()} disabled={finishing || saving > 0}>{finishing ? 'Submitting…' : 'Submit now'}</button>
        </div>
      </dialog>
    </div>
  );
}
