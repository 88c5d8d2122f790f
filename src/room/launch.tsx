import { render } from 'preact';
import { useEffect, useMemo, useState } from 'preact/hooks';
import { createApi, RoomError } from './api.js';
import { brandStyle } from './branding.js';
import { Brand, NoticePage } from './chrome.js';
import type { RoomHost } from './lifecycle.js';
import { hasRoom, preloadRoom, Room } from './rooms.js';
import { formatDuration } from './countdown.js';
import { noticeFor, type Notice } from './messages.js';
import { SessionKeeper } from './session.js';
import { adoptStyles } from './styles.js';
import type { Branding, SessionContext, SessionGrant } from './types.js';

interface Preview { subject_kind: string; title: string; description: string | null; duration_seconds: number | null; candidate_name: string | null; branding: Branding }
/** An exchanged link: the grant, when it arrived, and the link's first characters (to recognise a reopened link). */
interface Opened { grant: SessionGrant; redirect_url: string | null; receivedAt: number; link: string }

const linkId = (token: string) => token.slice(0, 16);

/** What the launch page says before the click, per kind of assessment. */
const INTROS: Record<string, { what: string; length(duration: string): string; rules: string[] }> = {
  coding: {
    what: 'a coding assessment', length: (d) => `You will have ${d}.`,
    rules: [
      'The timer starts when you press Start and keeps running if you close the page.',
      'Run your code on the examples as often as you like; each submission uses one attempt.',
      'Press Finish when you are done. Anything submitted when time runs out is kept.',
      'Switching tabs, leaving the window and pasting are noted for the reviewer.',
    ],
  },
  interview: {
    what: 'an interview with an AI interviewer', length: (d) => `It lasts about ${d}.`,
    rules: [
      'Press Start to open the interview room; the interview itself begins when you join there.',
      'You can answer by typing, or by voice where your browser supports it.',
      'Leaving the page pauses the interview; coming back resumes it.',
      'Switching tabs, leaving the window and pasting are noted for the reviewer.',
    ],
  },
  psychometric: {
    what: 'a personality questionnaire', length: (d) => `You will have ${d}.`,
    rules: ['There are no right or wrong answers: answer as you are, not as you would like to be.', 'Your answers are saved as you go; you can close the page and come back.'],
  },
  prompt_engineering: {
    what: 'a prompt-engineering assessment', length: (d) => `You will have ${d}.`,
    rules: [
      'The timer starts when you press Start and keeps running if you close the page.',
      'Each task has a limited number of attempts; every attempt is graded on hidden cases.',
      'Switching tabs, leaving the window and pasting are noted for the reviewer.',
    ],
  },
};

/** The session a tab opened, so a reload resumes the room instead of asking for a link that is now used. */
const STORED = 'prep.launch.session';
const REDIRECT_SECONDS = 5;

function readStored(): Opened | null {
  try {
    const raw = sessionStorage.getItem(STORED);
    return raw ? (JSON.parse(raw) as Opened) : null;
  } catch {
    return null;
  }
}

function store(opened: Opened | null) {
  try {
    if (opened) sessionStorage.setItem(STORED, JSON.stringify(opened));
    else sessionStorage.removeItem(STORED);
  } catch {
    // a reload will then need a new link; nothing else depends on it
  }
}

/** The hosted launch page, booted by the bundle on the service's own /launch page. */
export function bootLaunch(element: HTMLElement): void {
  adoptStyles(document);
  document.body.classList.add('prep-hosted');
  render(<Launch />, element);
}

function Launch() {
  const origin = location.origin;
  const token = useMemo(() => new URLSearchParams(location.hash.slice(1)).get('token'), []);
  const anonymous = useMemo(() => createApi(origin, () => null), []); // preview and exchange carry no session
  const [preview, setPreview] = useState<Preview | null>(null);
  // A reload (no fragment any more) or the same link reopened in this tab resumes the session it opened.
  const [opened, setOpened] = useState<Opened | null>(() => {
    const stored = readStored();
    return stored && (!token || stored.link === linkId(token)) ? stored : null;
  });
  const [error, setError] = useState<RoomError | null>(null);
  const [busy, setBusy] = useState(false);

  // The link this tab already used, opened again: the room resumes, and the used token leaves the address bar again.
  useEffect(() => {
    if (token && opened) history.replaceState(null, '', location.pathname);
  }, []);

  // Another link opened in this tab changes only the fragment: start over with it.
  useEffect(() => {
    const onHash = () => location.reload();
    window.addEventListener('hashchange', onHash);
    return () => window.removeEventListener('hashchange', onHash);
  }, []);

  // The preview only reads: it never uses the link (link scanners fetch pages too).
  useEffect(() => {
    if (!token || opened) return;
    anonymous.post<Preview>('/launch/preview', { token }).then((p) => {
      setPreview(p);
      preloadRoom(p.subject_kind); // fetched while the candidate reads, ready by the time they press Start
    }, () => setPreview(null));
  }, []);

  if (error) return <NoticePage branding={preview?.branding ?? null} notice={noticeFor(error.code)} tone="warning" />;
  if (opened) return <OpenedRoom opened={opened} />;
  if (!token) return <NoticePage branding={null} notice={noticeFor('invalid_launch_token')} tone="warning" />;

  const start = async () => {
    setBusy(true);
    try {
      const grant = await anonymous.post<SessionGrant & { redirect_url: string | null }>('/v1/launch/exchange', { token });
      const next = { grant, redirect_url: grant.redirect_url, receivedAt: Date.now(), link: linkId(token) };
      store(next);
      history.replaceState(null, '', location.pathname); // the used token leaves the address bar and history
      setOpened(next);
    } catch (e) {
      setError(e instanceof RoomError ? e : new RoomError(0, 'api_error', String(e)));
    } finally {
      setBusy(false);
    }
  };

  const branding = preview?.branding ?? null;
  const intro = INTROS[preview?.subject_kind ?? ''] ?? INTROS.coding!;
  return (
    <div class="prep-page" style={brandStyle(branding)}>
      <main class="prep-card prep-launch" role="main">
        <Brand branding={branding} />
        <h1>{preview ? preview.title : 'Your assessment'}</h1>
        {preview?.candidate_name ? <p class="prep-greeting">Hello {preview.candidate_name},</p> : null}
        <p>
          {branding ? `${branding.company_name} has invited you to ${intro.what}.` : `You have been invited to ${intro.what}.`}
          {preview?.duration_seconds ? ` ${intro.length(formatDuration(preview.duration_seconds))}` : ''}
        </p>
        {preview?.description ? <p class="prep-dim">{preview.description}</p> : null}
        <ul class="prep-rules">{intro.rules.map((rule) => <li key={rule}>{rule}</li>)}</ul>
        <button type="button" class="prep-button prep-start" onClick={() => void start()} disabled={busy}>{busy ? 'Opening…' : 'Start'}</button>
      </main>
    </div>
  );
}

function OpenedRoom({ opened }: { opened: Opened }) {
  const origin = location.origin;
  const [context, setContext] = useState<SessionContext | null>(null);
  const [lost, setLost] = useState<RoomError | null>(null);
  const [unreachable, setUnreachable] = useState(false);
  const keeper = useMemo(() => new SessionKeeper(origin, opened.grant, {
    refreshed: (grant, receivedAt) => store({ ...opened, grant, receivedAt }),
    // The token is dead (refused, or expired while unreachable): the stored session is of no more use.
    lost: (e) => {
      store(null);
      setLost(e);
    },
  }, opened.receivedAt), []);
  const api = useMemo(() => createApi(origin, keeper.token), []);

  useEffect(() => {
    keeper.start();
    // A stored token may be due for refresh (or past it) after a reload: refresh first, then read the context.
    void keeper.tick().then(() => api.get<SessionContext>('/v1/session')).then(setContext, (e) => {
      const error = e instanceof RoomError ? e : new RoomError(0, 'network_error', String(e));
      if (error.transient) return setUnreachable(true); // kept: "Try again" reloads and resumes
      keeper.stop();
      store(null);
      setLost(error);
    });
    return () => keeper.stop();
  }, []);

  if (!context && lost) return <NoticePage branding={null} notice={hostedNotice(lost.code)} tone="warning" />;
  if (!context && unreachable) {
    return (
      <NoticePage branding={null} notice={noticeFor('network_error')} tone="warning">
        <button type="button" class="prep-button" onClick={() => location.reload()}>Try again</button>
      </NoticePage>
    );
  }
  if (!context) return <div class="prep-page"><div class="prep-card" role="status"><p class="prep-loading">Opening your assessment…</p></div></div>;
  if (!hasRoom(context.subject_kind)) {
    keeper.stop();
    return <NoticePage branding={context.branding} notice={{ title: 'Not available here yet', body: 'This kind of assessment cannot be taken on this page yet.' }} tone="warning" />;
  }
  const host: RoomHost = {
    api, root: document, emit: () => {}, token: keeper.token,
    onEnded: () => { keeper.stop(); store(null); },
    finishedExtra: opened.redirect_url ? <Redirect url={opened.redirect_url} /> : null,
    notice: hostedNotice,
  };
  return <Room kind={context.subject_kind} host={host} sessionId={context.subject_id} branding={context.branding} title={context.round.name} lost={lost} livemode={context.livemode} />;
}

/** On the hosted page a lost session cannot be reopened from the (single-use) link: say what to do instead. */
function hostedNotice(code: string): Notice {
  return code === 'invalid_session_token'
    ? { title: 'Your session has ended', body: 'For your security, sessions end after a while without contact. Your submitted work is saved. To continue, ask the company that invited you for a new link.' }
    : noticeFor(code);
}

/** Back to the customer's page after the finished page has been seen for a few seconds. */
function Redirect({ url }: { url: string }) {
  const [left, setLeft] = useState(REDIRECT_SECONDS);
  useEffect(() => {
    const t = setInterval(() => setLeft((n) => n - 1), 1000);
    return () => clearInterval(t);
  }, []);
  useEffect(() => {
    if (left <= 0) location.assign(url);
  }, [left]);
  let host = url;
  try { host = new URL(url).host; } catch { /* shown as given */ }
  return <p><a class="prep-button" href={url}>Continue to {host}</a> <span class="prep-dim">(automatically in {Math.max(0, left)} s)</span></p>;
}

