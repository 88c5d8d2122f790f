import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { RoomError } from './api.js';
import { brandStyle } from './branding.js';
import { Brand } from './chrome.js';
import { formatClock, formatDuration } from './countdown.js';
import { InterviewChannel, type ChannelTurn, type ConnectionState, type OutboxStore } from './interview-channel.js';
import { InterviewClock } from './interview-clock.js';
import { Drafts } from './drafts.js';
import { InterviewTools, type ToolsHandle } from './interview-tools.js';
import { useLifecycle, type Ended, type RoomProps } from './lifecycle.js';
import { startRecording, type Recording, type RecordingState } from './recorder.js';
import { canListen, canSpeak, createListener, createSpeaker, recognitionPlace, type Listener, type ListenFailure, type Speaker } from './speech.js';
import { useProctoring } from './timed.js';
import type { InterviewJoin, InterviewTimer } from './types.js';

/** The ending an interview status means: ended and its outcomes are the candidate's "done". */
const interviewEnding = (status: string): Ended | null =>
  ['ended', 'completed', 'failed'].includes(status) ? { status: 'completed' }
    : status === 'cancelled' ? { status: 'cancelled' } : status === 'expired' ? { status: 'expired' } : null;

const LISTEN_FAILURES: Record<ListenFailure, string> = {
  not_allowed: 'The microphone is blocked for this page, so answers are typed. To answer by voice, allow the microphone in the address bar and choose "Answer by voice" again.',
  no_microphone: 'No microphone was found, so answers are typed.',
  network: 'Your browser\'s speech service could not be reached, so answers are typed.',
  unsupported: 'Your browser cannot recognise speech in this language, so answers are typed.',
  failed: 'Speech recognition stopped working, so answers are typed. You can try voice again.',
};

const RECORDING_NOTES: Partial<Record<RecordingState, string>> = {
  recording: 'Recording your microphone',
  refused: 'Not recorded: the microphone was not allowed',
  unsupported: 'Not recorded: this browser cannot record',
  failed: 'Recording stopped working',
  full: 'Recording ended: it reached its size limit',
};

/** A speaker's line in the room: stored turns by seq, plus the interviewer's turn while a model streams it. */
interface Line { key: string; speaker: 'interviewer' | 'candidate'; text: string; kind: ChannelTurn['kind'] }

const SILENCE_MS = 2500;

/** The AI interview's room: a conversation by voice or typing, with a code editor and a whiteboard beside it. */
export function InterviewRoom({ host, sessionId, branding, title, lost, livemode = true }: RoomProps) {
  const { api } = host;
  const base = `/v1/interviews/${sessionId}`;
  // Once the interview is over, nothing of the candidate's code stays in this browser (the coding and prompt rooms
  // clear theirs the same way); an unmount while it runs (teardown alone) keeps it for their return.
  const lifecycle = useLifecycle({ host, sessionId, lost }, { onEnd: () => { new Drafts(`interview-${base}`).clear(); teardown(); } });
  const { ended, setEnded, banner, setBanner, fail, opening, openingPage, endedPage } = lifecycle;
  const [timer, setTimer] = useState<InterviewTimer | null>(null);
  const [config, setConfig] = useState<InterviewJoin | null>(null);
  const [joining, setJoining] = useState(false);
  const [voice, setVoice] = useState(canListen());
  const [spoken, setSpoken] = useState(canSpeak());
  const [rate, setRate] = useState(1);
  const [lines, setLines] = useState<Line[]>([]);
  const [unsent, setUnsent] = useState<Array<{ id: string; text: string }>>([]);
  const [streaming, setStreaming] = useState<Record<string, string>>({});
  const [draft, setDraft] = useState('');
  const [listening, setListening] = useState(false);
  const [voiceNote, setVoiceNote] = useState<string | null>(null);
  const [place, setPlace] = useState<'on_device' | 'vendor_service' | null>(null);
  const placeRef = useRef(place);
  placeRef.current = place;
  const [sendOnSilence, setSendOnSilence] = useState(false);
  const [caption, setCaption] = useState<string | null>(null);
  const [connection, setConnection] = useState<ConnectionState>('connecting');
  const [refusal, setRefusal] = useState<string | null>(null);
  const [clockText, setClockText] = useState('–:––');
  const [paused, setPaused] = useState(false);
  const pausedRef = useRef(false);
  const [recording, setRecording] = useState<RecordingState>('off');
  const [closing, setClosing] = useState(false);
  const clock = useMemo(() => new InterviewClock(), []);
  const channel = useRef<InterviewChannel | null>(null);
  const speaker = useRef<Speaker | null>(null);
  const listener = useRef<Listener | null>(null);
  const recorder = useRef<Recording | null>(null);
  const holder = useRef(false); // this tab's channel was accepted (and not since refused)
  const gone = useRef(false);
  const endedRef = useRef(false);
  endedRef.current = Boolean(ended);
  const lastPause = useRef<Promise<unknown>>(Promise.resolve());
  const boardSharedAtEnd = useRef(false);
  const tools = useRef<ToolsHandle | null>(null);
  const dialog = useRef<HTMLDialogElement>(null);
  const answerBox = useRef<HTMLTextAreaElement>(null);
  const log = useRef<HTMLDivElement>(null);
  const languageRef = useRef('en');
  const typedBefore = useRef(''); // the answer box when listening began: speech is added after it
  const wants = useRef({ voice, sendOnSilence, draft: '', spoken });
  wants.current = { voice, sendOnSilence, draft, spoken };

  // Before joining: where the interview stands (a reload of a running one offers "Return"; a finished one ends here).
  useEffect(() => {
    let cancelled = false;
    api.get<InterviewTimer>(`${base}/timer`).then((t) => {
      if (cancelled) return;
      const end = interviewEnding(t.status);
      if (end) return setEnded(end);
      setTimer(t);
    }, (e) => !cancelled && fail(e));
    return () => { cancelled = true; };
  }, [opening]);

  useProctoring(host, base, Boolean(config) && !ended);

  /** The room has ended or gone (an embed unmounted by its page): nothing may speak, listen or record after this. */
  function teardown() {
    if (gone.current) return;
    gone.current = true;
    say.cancel();
    // Unmounted while the interview runs (the embedding page moved on): stop its clock as leaving the page would.
    if (holder.current && !endedRef.current) void api.post(`${base}/pause`, undefined, { keepalive: true }).catch(() => {});
    channel.current?.stop();
    speaker.current?.hush();
    listener.current?.stop();
    void recorder.current?.stop();
  }
  useEffect(() => () => teardown(), []);
  // Every ending stops them, a refused token's too (onEnd, which also clears the drafts, runs for the session's own endings).
  useEffect(() => {
    if (ended) teardown();
  }, [ended]);

  // The clock on screen, from the channel's last word, once a second.
  useEffect(() => {
    if (!config || ended) return;
    const tick = () => {
      const left = clock.remaining();
      setClockText(left === null ? '–:––' : formatClock(left));
      // A last chance to share the board before time is up (sharing is refused once the interview has ended).
      if (left !== null && left <= 45 && clock.isRunning && !boardSharedAtEnd.current) {
        boardSharedAtEnd.current = true; // once: later strokes are shared by End or by the candidate
        void tools.current?.shareBoardIfChanged();
      }
    };
    tick();
    const timer = setInterval(tick, 1000);
    return () => clearInterval(timer);
  }, [config, ended]);

  // The session token is refreshed by the page around the room: the channel is told, so it stays authenticated.
  useEffect(() => {
    if (!config || !host.token) return;
    let last = host.token();
    const check = setInterval(() => {
      const now = host.token!();
      if (now !== last) channel.current?.refreshToken(now);
      last = now;
    }, 2000);
    return () => clearInterval(check);
  }, [config]);

  // Leaving the page pauses the clock; coming back resumes it (joining again is never billed twice).
  useEffect(() => {
    if (!config || ended) return;
    // Only the tab that holds the interview's channel pauses and resumes it: a tab refused as a second copy must
    // not pause the one in use when it is closed.
    const away = () => {
      if (!holder.current) return;
      speaker.current?.hush();
      listener.current?.stop();
      recorder.current?.pause();
      lastPause.current = api.post(`${base}/pause`, undefined, { keepalive: true }).catch(() => {});
    };
    const onVisibility = () => {
      if (document.visibilityState === 'hidden') return away();
      if (!holder.current) return;
      recorder.current?.resume();
      resume();
    };
    document.addEventListener('visibilitychange', onVisibility);
    window.addEventListener('pagehide', away);
    return () => {
      document.removeEventListener('visibilitychange', onVisibility);
      window.removeEventListener('pagehide', away);
    };
  }, [config, ended]);

  useEffect(() => {
    log.current?.lastElementChild?.scrollIntoView?.({ block: 'end' });
  }, [lines, streaming, unsent]);

  /** Joins again (which resumes a pause), after any pause still on its way, so the two cannot arrive the other way round. */
  const resume = () => {
    void lastPause.current.then(() => api.post<InterviewJoin>(`${base}/join`)).then(
      (j) => clock.sync({ running: j.clock.running, remaining_seconds: j.clock.remaining_seconds }),
      (e) => !gone.current && fail(e),
    );
  };

  const say = useMemo(() => debounceLatest((text: string) => {
    if (gone.current) return;
    const afterwards = () => {
      if (!gone.current && wants.current.voice && !wants.current.draft.trim() && !listener.current?.listening) listen();
    };
    // Listening pauses while the interviewer's voice plays (the microphone would hear it); a muted one interrupts nothing.
    if (!wants.current.spoken) return afterwards();
    listener.current?.stop();
    speaker.current?.say(text, afterwards);
  }, 200), []);

  const join = async () => {
    setJoining(true);
    try {
      const room = await api.post<InterviewJoin>(`${base}/join`);
      speaker.current = createSpeaker(room.language, { rate, muted: !spoken, onCaption: setCaption });
      clock.sync(room.clock);
      languageRef.current = room.language;
      setConfig(room);
      host.emit('prep:started', { session_id: sessionId, subject_kind: 'interview' });
      openChannel(room);
      if (voice) void recognitionPlace(room.language).then(setPlace);
    } catch (e) {
      fail(e);
    } finally {
      setJoining(false);
    }
  };

  /** Live mode: recording starts once this tab holds the channel (a refused second tab never records). */
  const beginRecording = async () => {
    if (recorder.current || gone.current) return;
    const started = await startRecording({
      interviewId: sessionId,
      uploadUrl: (index) => channel.current!.recordingUrl(index),
      onState: (state) => !gone.current && setRecording(state),
    });
    if (gone.current) return void started?.stop(0); // ended while the browser asked for the microphone
    recorder.current = started;
  };

  const openChannel = (room: InterviewJoin) => {
    const ch = new InterviewChannel({
      url: room.channel.url, interviewId: sessionId, token: host.token ?? (() => ''), outboxStore: tabOutbox(sessionId),
      events: {
        turn: (turn) => {
          setLines((all) => [...all, { key: `t${turn.seq}`, speaker: turn.speaker, text: turn.text, kind: turn.kind }]);
          if (turn.speaker !== 'interviewer') return;
          setStreaming({});
          if (turn.problem) tools.current?.showProblem(turn.problem);
          say(turn.text);
        },
        delta: (ref, text) => setStreaming((all) => ({ ...all, [ref]: (all[ref] ?? '') + text })),
        discard: (ref) => setStreaming((all) => {
          const { [ref]: _gone, ...rest } = all;
          return rest;
        }),
        clock: (c) => {
          clock.sync(c);
          // `status` messages name the state; the periodic `clock` ones only say whether it runs.
          const isPaused = c.status ? c.status === 'paused' : !c.running;
          pausedRef.current = isPaused;
          setPaused(isPaused);
        },
        unsent: (answers) => setUnsent([...answers]),
        ended: (status, reason) => setEnded(reason === 'time_up' ? { status: 'timed_out' } : interviewEnding(status) ?? { status: 'completed' }),
        refused: (code, message, answer) => {
          if (answer !== undefined) setDraft((d) => (d ? `${answer}\n${d}` : answer)); // given back to edit or resend
          setBanner(code === 'paused' ? 'The interview is paused. It resumes when you return to this page.' : message);
        },
        connection: (state, detail) => {
          setConnection(state);
          if (state === 'open') {
            holder.current = true;
            if (room.recording.enabled) void beginRecording();
            // Taking over from a closed tab (which paused on its way out), or back after a pause: join resumes it.
            if (pausedRef.current && document.visibilityState === 'visible') resume();
          }
          if (state === 'refused') holder.current = false;
          if (state !== 'refused' || !detail) return;
          if (detail.code === 'already_connected') return setRefusal('This interview is open in another tab or window. Close it there, then choose "Use this tab".');
          if (detail.code === 'session_already_finalized') return setEnded({ status: 'completed' });
          fail(new RoomError(401, detail.code, detail.message));
        },
      },
    });
    channel.current = ch;
    ch.start();
  };

  const listen = () => {
    if (!listener.current) {
      listener.current = createListener(languageRef.current, { // a ref: `say` calls this render's first listen
        silenceMs: SILENCE_MS, onDevice: placeRef.current === 'on_device',
        heard: (text) => {
          const answer = typedBefore.current ? `${typedBefore.current} ${text}` : text; // what was typed first stays
          setDraft(answer);
          channel.current?.interim(answer);
        },
        silence: () => {
          listener.current?.stop();
          if (wants.current.sendOnSilence) send();
          else answerBox.current?.focus();
        },
        failed: (reason) => {
          setVoice(false);
          setVoiceNote(LISTEN_FAILURES[reason]);
        },
        stopped: () => setListening(false),
      });
    }
    if (!listener.current) return;
    speaker.current?.hush();
    setVoiceNote(null);
    typedBefore.current = wants.current.draft.trim();
    listener.current.start();
    setListening(true);
  };

  const send = () => {
    const text = (answerBox.current?.value ?? wants.current.draft).trim();
    if (!text || !channel.current) return;
    listener.current?.stop();
    channel.current.answer(text.slice(0, 8000));
    setDraft('');
  };

  const endInterview = async () => {
    setClosing(true);
    try {
      await tools.current?.beforeEnd();
      await recorder.current?.stop();
      await api.post(`${base}/end`);
      dialog.current?.close();
      setEnded({ status: 'completed' });
    } catch (e) {
      dialog.current?.close();
      fail(e);
      // Still going (a refused or failed End): the recorder stopped for it starts again, numbering on.
      if (!endedRef.current && !gone.current && config?.recording.enabled) {
        recorder.current = null;
        void beginRecording();
      }
    } finally {
      setClosing(false);
    }
  };

  if (ended) return endedPage(branding);
  if (!timer) return openingPage(branding);
  if (!config) {
    return <Lobby {...{ branding, title, timer, livemode, voice, setVoice, spoken, setSpoken, joining, banner }} join={() => void join()} />;
  }

  const turnsShown = lines.filter((l) => l.kind === 'text');
  const live = Object.entries(streaming);
  return (
    <div class="prep-room prep-interview" style={brandStyle(branding)}>
      <header class="prep-header">
        <Brand branding={branding} />
        <span class="prep-title">{title} · {config.round.role}</span>
        {connection !== 'open' ? <span class="prep-pill prep-connection" role="status">{connection === 'refused' ? 'Disconnected' : 'Reconnecting…'}</span> : null}
        {recording !== 'off' && recording !== 'stopped' ? <span class={`prep-pill prep-rec prep-rec-${recording}`} role="status">{RECORDING_NOTES[recording]}</span> : null}
        <span class="prep-timer" role="timer" aria-label="Time remaining">{paused ? `Paused · ${clockText}` : clockText}</span>
        <button type="button" class="prep-button prep-finish" onClick={() => dialog.current?.showModal()}>End interview</button>
      </header>
      {banner ? <div class="prep-banner" role="alert">{banner}<button type="button" class="prep-link" onClick={() => setBanner(null)}>Dismiss</button></div> : null}
      {refusal ? (
        <div class="prep-banner" role="alert">{refusal}
          <button type="button" class="prep-link" onClick={() => { setRefusal(null); channel.current?.retry(); }}>Use this tab</button>
        </div>
      ) : null}
      {!livemode ? <div class="prep-note" role="note">Practice interview (test mode): nothing is recorded.</div> : null}
      <div class="prep-body prep-interview-body">
        <section class="prep-conversation" aria-label="Conversation">
          <div class="prep-transcript" ref={log} role="log" aria-live="polite" aria-label="Transcript">
            {turnsShown.map((l) => (
              <div key={l.key} class={`prep-turn prep-turn-${l.speaker}`}>
                <span class="prep-speaker">{l.speaker === 'interviewer' ? 'Interviewer' : 'You'}</span>
                <p>{l.text}</p>
              </div>
            ))}
            {unsent.map((a) => (
              <div key={a.id} class="prep-turn prep-turn-candidate prep-turn-pending" aria-busy="true">
                <span class="prep-speaker">You · sending…</span><p>{a.text}</p>
              </div>
            ))}
            {live.map(([ref, text]) => (
              <div key={ref} class="prep-turn prep-turn-interviewer prep-turn-pending" aria-busy="true">
                <span class="prep-speaker">Interviewer</span><p>{text}</p>
              </div>
            ))}
          </div>
          {caption ? <p class="prep-caption" aria-hidden="true"><span class="prep-label">Speaking</span> {caption}</p> : null}
          <form class="prep-composer" onSubmit={(e) => { e.preventDefault(); send(); }}>
            <label class="prep-visually-hidden" for="prep-answer">Your answer</label>
            <textarea id="prep-answer" ref={answerBox} value={draft} rows={3} maxLength={8000} aria-describedby="prep-answer-help"
              placeholder={listening ? 'Listening… speak your answer' : 'Type your answer'}
              onInput={(e) => setDraft((e.target as HTMLTextAreaElement).value)}
              onKeyDown={(e) => { if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) { e.preventDefault(); send(); } }} />
            <div class="prep-composer-actions">
              {canListen() ? (
                <button type="button" class="prep-button prep-secondary" aria-pressed={listening}
                  onClick={() => (listening ? listener.current?.stop() : (setVoice(true), listen()))}>
                  {listening ? 'Stop listening' : 'Answer by voice'}
                </button>
              ) : null}
              <button type="submit" class="prep-button" disabled={!draft.trim()}>Send</button>
            </div>
            <p id="prep-answer-help" class="prep-help">
              Ctrl+Enter sends. {canListen() ? 'Spoken answers appear here first: edit them if needed, then send.' : 'This browser cannot recognise speech: answers are typed.'}
            </p>
            {canListen() ? (
              <label class="prep-check"><input type="checkbox" checked={sendOnSilence} onChange={(e) => setSendOnSilence((e.target as HTMLInputElement).checked)} /> Send when I stop talking</label>
            ) : null}
            {voiceNote ? <p class="prep-error" role="alert">{voiceNote}</p> : null}
            {voice && place === 'vendor_service' ? <p class="prep-dim prep-privacy">Your browser turns your voice into text on its maker's servers (Google for Chrome, Microsoft for Edge, Apple for Safari). Type instead if you prefer.</p> : null}
            {voice && place === 'on_device' ? <p class="prep-dim prep-privacy">Your voice is turned into text on this device.</p> : null}
          </form>
          {canSpeak() ? (
            <div class="prep-voice-controls">
              <label class="prep-check"><input type="checkbox" checked={!spoken} onChange={(e) => {
                const muted = (e.target as HTMLInputElement).checked;
                setSpoken(!muted);
                speaker.current?.setMuted(muted);
              }} /> Mute the interviewer's voice</label>
              <label class="prep-select">Speed <select value={String(rate)} onChange={(e) => {
                const value = Number((e.target as HTMLSelectElement).value);
                setRate(value);
                speaker.current?.setRate(value);
              }}>{[0.8, 1, 1.2, 1.5].map((r) => <option key={r} value={String(r)}>{r}×</option>)}</select></label>
            </div>
          ) : null}
        </section>
        <InterviewTools handle={tools} host={host} base={base} config={config} onError={fail} disabled={paused} />
      </div>
      <dialog ref={dialog} class="prep-dialog" aria-labelledby="prep-end-title">
        <h2 id="prep-end-title">End the interview?</h2>
        <p>Your answers so far are kept and scored. Once you end it, you cannot return.</p>
        <div class="prep-dialog-actions">
          <button type="button" class="prep-button prep-secondary" onClick={() => dialog.current?.close()} disabled={closing}>Keep going</button>
          <button type="button" class="prep-button" onClick={() => void endInterview()} disabled={closing}>{closing ? 'Ending…' : 'End now'}</button>
        </div>
      </dialog>
    </div>
  );
}

function Lobby(props: {
  branding: RoomProps['branding']; title: string; timer: InterviewTimer; livemode: boolean; voice: boolean; setVoice(v: boolean): void;
  spoken: boolean; setSpoken(v: boolean): void; joining: boolean; banner: string | null; join(): void;
}) {
  const { branding, title, timer, livemode, voice, setVoice, spoken, setSpoken, joining, banner, join } = props;
  const returning = timer.status !== 'scheduled';
  return (
    <div class="prep-page" style={brandStyle(branding)}>
      <main class="prep-card prep-lobby" role="main">
        <Brand branding={branding} />
        <h1>{title}</h1>
        <p>
          {returning ? `Welcome back. ${formatClock(timer.remaining_seconds)} of the interview is left; the clock restarts when you return.`
            : `A conversation of about ${formatDuration(timer.duration_seconds)} with an AI interviewer. The clock starts when you join and stops while you are away from this page.`}
        </p>
        <ul class="prep-rules">
          <li>The interviewer speaks and its words appear on screen. Answer by typing{canListen() ? ' or by voice' : ''}.</li>
          <li>A code editor and a whiteboard are beside the conversation; share what you write or draw when you are ready.</li>
          <li>Leaving this page pauses the interview; coming back resumes it. Switching tabs is noted for the reviewer.</li>
        </ul>
        <fieldset class="prep-options">
          <legend>How you would like to talk</legend>
          {canListen() ? <label class="prep-check"><input type="checkbox" checked={voice} onChange={(e) => setVoice((e.target as HTMLInputElement).checked)} /> Answer by voice (you can always type)</label>
            : <p class="prep-dim">This browser cannot recognise speech, so you will type your answers.</p>}
          {canSpeak() ? <label class="prep-check"><input type="checkbox" checked={spoken} onChange={(e) => setSpoken((e.target as HTMLInputElement).checked)} /> Read the interviewer's questions aloud</label> : null}
        </fieldset>
        {livemode ? (
          <section class="prep-consent" aria-labelledby="prep-consent-title">
            <h2 id="prep-consent-title">This interview is recorded</h2>
            <p>
              When you join, your microphone is recorded (with the interviewer's voice as your microphone picks it up from your speakers) and
              uploaded as the interview goes, together with the transcript, your code and whiteboard snapshots.
              {branding ? ` ${branding.company_name}` : ' The company that invited you'} sees the recording, the transcript and the report; Prep keeps them for that company and deletes them when it erases your data.
              Your browser will ask for the microphone; if you refuse, the interview goes on without a recording.
            </p>
          </section>
        ) : <p class="prep-note" role="note">This is a practice interview (test mode): nothing is recorded.</p>}
        {banner ? <p class="prep-error" role="alert">{banner}</p> : null}
        <button type="button" class="prep-button prep-start" onClick={join} disabled={joining}>
          {joining ? 'Joining…' : returning ? 'Return to the interview' : livemode ? 'I agree — join the interview' : 'Join the interview'}
        </button>
      </main>
    </div>
  );
}

/** Unsent answers kept for this tab (sessionStorage), so a reload while offline resends them instead of losing them. */
function tabOutbox(interviewId: string): OutboxStore {
  const key = `prep.interview.${interviewId}.unsent`;
  return {
    load() {
      try {
        const kept = JSON.parse(sessionStorage.getItem(key) ?? '[]') as unknown;
        return Array.isArray(kept) ? kept : [];
      } catch {
        return [];
      }
    },
    save(answers) {
      try {
        if (answers.length) sessionStorage.setItem(key, JSON.stringify(answers));
        else sessionStorage.removeItem(key);
      } catch {
        // storage full or disabled: the answers stay in memory only
      }
    },
  };
}

/** Calls `fn` with the latest argument once no newer one came for `ms` (a burst of replayed turns says only the last). */
function debounceLatest<T>(fn: (value: T) => void, ms: number): ((value: T) => void) & { cancel(): void } {
  let timer: ReturnType<typeof setTimeout> | null = null;
  const call = (value: T) => {
    if (timer) clearTimeout(timer);
    timer = setTimeout(() => fn(value), ms);
  };
  return Object.assign(call, { cancel: () => { if (timer) clearTimeout(timer); } });
}
