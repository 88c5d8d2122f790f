import { render } from 'preact';
import { useEffect, useMemo, useState } from 'preact/hooks';
import { createApi, RoomError } from './api.js';
import { brandStyle } from './branding.js';
import { Brand, NoticePage } from './chrome.js';
import { CodingRoom, type RoomHost } from './coding-room.js';
import { formatDuration } from './countdown.js';
import { noticeFor } from './messages.js';
import { SessionKeeper } from './session.js';
import { adoptStyles } from './styles.js';
import type { Branding, SessionContext, SessionGrant } from './types.js';

interface Preview { subject_kind: string; title: string; description: string | null; duration_seconds: number | null; candidate_name: string | null; branding: Branding }
interface Opened { grant: SessionGrant; redirect_url: string | null }

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
  const [preview, setPreview] = useState<Preview | null>(null);
  const [opened, setOpened] = useState<Opened | null>(() => (token ? null : readStored()));
  const [error, setError] = useState<RoomError | null>(null);
  const [busy, setBusy] = useState(false);

  // Another link opened in this tab changes only the fragment: start over with it.
  useEffect(() => {
    const onHash = () => location.reload();
    window.addEventListener('hashchange', onHash);
    return () => window.removeEventListener('hashchange', onHash);
  }, []);

  // The preview only reads: it never uses the link (link scanners fetch pages too).
  useEffect(() => {
    if (!token) return;
    createApi(origin, () => null).post<Preview>('/launch/preview', { token }).then(setPreview, () => setPreview(null));
  }, []);

  if (error) return <NoticePage branding={preview?.branding ?? null} notice={noticeFor(error.code)} tone="warning" />;
  if (opened) return <OpenedRoom opened={opened} />;
  if (!token) return <NoticePage branding={null} notice={noticeFor('invalid_launch_token')} tone="warning" />;

  const start = async () => {
    setBusy(true);
    try {
      const grant = await createApi(origin, () => null).post<SessionGrant & { redirect_url: string | null }>('/v1/launch/exchange', { token });
      const next = { grant, redirect_url: grant.redirect_url };
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
  return (
    <div class="prep-page" style={brandStyle(branding)}>
      <main class="prep-card prep-launch" role="main">
        <Brand branding={branding} />
        <h1>{preview ? preview.title : 'Your assessment'}</h1>
        {preview?.candidate_name ? <p class="prep-greeting">Hello {preview.candidate_name},</p> : null}
        <p>
          {branding ? `${branding.company_name} has invited you to a coding assessment.` : 'You have been invited to a coding assessment.'}
          {preview?.duration_seconds ? ` You will have ${formatDuration(preview.duration_seconds)}.` : ''}
        </p>
        {preview?.description ? <p class="prep-dim">{preview.description}</p> : null}
        <ul class="prep-rules">
          <li>The timer starts when you press Start and keeps running if you close the page.</li>
          <li>Run your code on the examples as often as you like; each submission uses one attempt.</li>
          <li>Press Finish when you are done. Anything submitted when time runs out is kept.</li>
          <li>Switching tabs, leaving the window and pasting are noted for the reviewer.</li>
        </ul>
        <button type="button" class="prep-button prep-start" onClick={() => void start()} disabled={busy}>{busy ? 'Opening…' : 'Start'}</button>
      </main>
    </div>
  );
}

function OpenedRoom({ opened }: { opened: Opened }) {
  const origin = location.origin;
  const [context, setContext] = useState<SessionContext | null>(null);
  const [lost, setLost] = useState<RoomError | null>(null);
  const onLost = (e: RoomError) => {
    store(null);
    setLost(e);
  };
  const keeper = useMemo(() => new SessionKeeper(origin, opened.grant, {
    refreshed: (grant) => store({ ...opened, grant }),
    lost: onLost,
  }), []);
  const api = useMemo(() => createApi(origin, keeper.token), []);

  useEffect(() => {
    keeper.start();
    // A stored token may have expired while the tab was closed: refresh first, then read the context.
    void keeper.tick().then(() => api.get<SessionContext>('/v1/session')).then(setContext, (e) => onLost(e instanceof RoomError ? e : new RoomError(0, 'api_error', String(e))));
    return () => keeper.stop();
  }, []);

  if (!context && lost) return <NoticePage branding={null} notice={noticeFor(lost.code)} tone="warning" />;
  if (!context) return <div class="prep-page"><div class="prep-card" role="status"><p class="prep-loading">Opening your assessment…</p></div></div>;
  if (context.subject_kind !== 'coding') {
    return <NoticePage branding={context.branding} notice={{ title: 'Not available here yet', body: 'This kind of assessment cannot be taken on this page yet.' }} tone="warning" />;
  }
  const host: RoomHost = {
    api, root: document, emit: () => {},
    onEnded: () => { keeper.stop(); store(null); },
    finishedExtra: opened.redirect_url ? <Redirect url={opened.redirect_url} /> : null,
  };
  return <CodingRoom host={host} sessionId={context.subject_id} branding={context.branding} title={context.round.name} lost={lost} />;
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

