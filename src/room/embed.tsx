import { render } from 'preact';
import { useEffect, useMemo, useState } from 'preact/hooks';
import { createApi, RoomError } from './api.js';
import { NoticePage } from './chrome.js';
import type { RoomHost } from './lifecycle.js';
import { hasRoom, Room } from './rooms.js';
import { noticeFor } from './messages.js';
import { SessionKeeper } from './session.js';
import { checkMount, type EmbedHandle, type EmbedOptions } from './embed-api.js';
import { sessionGrant } from './embed-session.js';
import { adoptStyles } from './styles.js';
import type { Branding, SessionContext } from './types.js';

interface EmbedConfig { allowed_origins: string[]; branding: Branding }

/**
 * Mounts the room in a customer's page. It renders in a shadow root (the page's CSS and the room's do not
 * mix), calls the API from the page's origin with the session token, refreshes the token at refresh_after,
 * and reports to the page with DOM events on `target` (they bubble): prep:ready, prep:started,
 * prep:submission, prep:progress, prep:token-refreshed, prep:completed, prep:error.
 */
export function mount(target: Element | string, options: EmbedOptions, defaultBase: string): EmbedHandle {
  const { element, grant } = checkMount(target, options);

  const hostElement = document.createElement('div');
  hostElement.className = 'prep-embed';
  hostElement.style.height = '100%';
  element.appendChild(hostElement);
  const shadow = hostElement.attachShadow({ mode: 'open' });
  adoptStyles(shadow);
  const container = document.createElement('div');
  container.className = 'prep-embedded';
  shadow.appendChild(container);

  const emit = (name: string, detail: Record<string, unknown>) =>
    element.dispatchEvent(new CustomEvent(name, { detail, bubbles: true, composed: true }));
  const base = (options.apiBase ?? defaultBase).replace(/\/$/, '');
  const keeper = new SessionKeeper(base, grant, {
    refreshed: (g) => emit('prep:token-refreshed', { expires_at: g.expires_at, refresh_after: g.refresh_after }),
    lost: (e) => renderWith({ lost: e }),
  });

  const renderWith = (state: { lost?: RoomError }) =>
    render(<Embed base={base} pk={options.publishableKey} keeper={keeper} root={shadow} emit={emit} lost={state.lost ?? null} />, container);
  renderWith({});

  let unmounted = false;
  return {
    setSession(session) {
      if (unmounted) return; // the room is gone: a late token must not bring it back into a detached element
      keeper.replace(sessionGrant(session, 'setSession'));
      render(null, container); // a fresh room: the one that lost its token has ended
      renderWith({});
    },
    unmount() {
      unmounted = true;
      keeper.stop();
      render(null, container);
      hostElement.remove();
    },
  };
}

function Embed({ base, pk, keeper, root, emit, lost }: {
  base: string; pk: string; keeper: SessionKeeper; root: ShadowRoot; emit: RoomHost['emit']; lost: RoomError | null;
}) {
  const api = useMemo(() => createApi(base, keeper.token), []);
  const [config, setConfig] = useState<EmbedConfig | null>(null);
  const [context, setContext] = useState<SessionContext | null>(null);
  const [error, setError] = useState<RoomError | null>(null);

  useEffect(() => {
    const fail = (e: unknown) => {
      const err = e instanceof RoomError ? e : new RoomError(0, 'api_error', String(e));
      keeper.stop();
      setError(err);
      emit('prep:error', { code: err.code, message: err.message });
    };
    createApi(base, () => null).get<EmbedConfig>(`/v1/embed-config?pk=${encodeURIComponent(pk)}`).then((c) => {
      setConfig(c);
      if (!c.allowed_origins.includes(location.origin)) {
        throw new RoomError(403, 'origin_not_allowed', `${location.origin} is not on this organisation's allowlist (POST /v1/domains).`);
      }
      return api.get<SessionContext>('/v1/session');
    }).then((ctx) => {
      setContext(ctx);
      if (hasRoom(ctx.subject_kind)) keeper.start(); // refreshes only while a room is shown
      emit('prep:ready', { subject_kind: ctx.subject_kind, subject_id: ctx.subject_id, status: ctx.status });
    }).catch(fail);
  }, []);

  // Without a room to report it (the room reports its own ending), the lost session is reported here.
  useEffect(() => {
    if (lost && !context) emit('prep:error', { code: lost.code, message: lost.message });
  }, [lost]);

  const branding = context?.branding ?? config?.branding ?? null;
  const problem = error ?? (context ? null : lost);
  if (problem) return <NoticePage branding={branding} notice={noticeFor(problem.code)} tone="warning" />;
  if (!context) return <div class="prep-page"><div class="prep-card" role="status"><p class="prep-loading">Loading the assessment…</p></div></div>;
  if (!hasRoom(context.subject_kind)) {
    return <NoticePage branding={context.branding} notice={{ title: 'Not available here yet', body: 'This kind of assessment cannot be shown in this widget yet.' }} tone="warning" />;
  }
  const host: RoomHost = { api, root, emit, token: keeper.token, onEnded: () => keeper.stop() };
  return <Room kind={context.subject_kind} host={host} sessionId={context.subject_id} branding={context.branding} title={context.round.name} lost={lost} livemode={context.livemode} />;
}
