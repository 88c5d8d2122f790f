import { useCallback, useEffect, useState } from 'preact/hooks';
import { RoomError, type Api } from './api.js';
import { NoticePage } from './chrome.js';
import { brandStyle } from './branding.js';
import { noticeFor, TERMINAL, type Notice } from './messages.js';
import type { Branding } from './types.js';

/** What the page around a room provides: the API with the session token, where to report, how to finish. */
export interface RoomHost {
  api: Api;
  /** The document or shadow root the room renders in (the editor needs it). */
  root: Document | ShadowRoot;
  /** DOM events for the host page (the embed); a no-op on the hosted page. */
  emit(name: string, detail: Record<string, unknown>): void;
  /** Shown under the finished page: the hosted page's "continue" link. */
  finishedExtra?: preact.ComponentChildren;
  onEnded?(status: 'completed' | 'timed_out'): void;
  /** The current session token (a room with a channel of its own passes it on when it is refreshed). */
  token?(): string;
  /** The message for an error code, when the host words some differently (the hosted page's lost session). */
  notice?(code: string): Notice;
}

/** What every kind's room takes: one map from subject_kind to a room of this shape (rooms.tsx). */
export interface RoomProps {
  host: RoomHost;
  sessionId: string;
  branding: Branding;
  title: string;
  /** Set when the session token could not be refreshed. */
  lost?: RoomError | null;
  /** Live or test mode (the session context's livemode): what a room records, and what it says about it. */
  livemode?: boolean;
}

export type Ended = { status: 'completed' | 'timed_out' | 'cancelled' | 'expired' } | { error: RoomError };

/** The ending a session status means, if it is one. */
export const endedBy = (status: string): Ended | null =>
  status === 'completed' ? { status: 'completed' } : status === 'timed_out' ? { status: 'timed_out' } : status === 'cancelled' ? { status: 'cancelled' } : null;

/**
 * The session lifecycle as every room sees it: opening (and trying again), the ending (finished, timed out,
 * cancelled, expired, lost) and how an API error maps onto it, finishing behind a confirmation dialog, and telling
 * the host once however the room ended. `lostEnding` lets a timed room read a token lost after its deadline as time
 * being up; `onEnd` is the room's own clean-up.
 */
export function useLifecycle(props: Pick<RoomProps, 'host' | 'sessionId' | 'lost'>, options: { lostEnding?: (e: RoomError) => Ended; onEnd?(): void } = {}) {
  const { host, sessionId, lost } = props;
  const [ended, setEndedState] = useState<Ended | null>(null);
  // The first ending stands: an End click and the server's "ended" message may both arrive, and the host hears once.
  const setEnded = useCallback((next: Ended) => setEndedState((first) => first ?? next), []);
  const [banner, setBanner] = useState<string | null>(null);
  const [opening, setOpening] = useState(0); // bumped by "Try again" when the room could not open
  const [finishing, setFinishing] = useState(false);
  const lostEnding = (e: RoomError): Ended => options.lostEnding?.(e) ?? { error: e };
  const fail = useCallback((error: unknown) => {
    const e = error instanceof RoomError ? error : new RoomError(0, 'api_error', String(error));
    if (e.code === 'session_already_finalized') return setEnded({ status: 'completed' });
    if (e.code === 'session_cancelled') return setEnded({ status: 'cancelled' });
    if (e.code === 'assignment_expired') return setEnded({ status: 'expired' });
    if (e.code === 'invalid_session_token' || e.code === 'origin_not_allowed') return setEnded(lostEnding(e));
    setBanner(e.message);
  }, []);

  useEffect(() => {
    if (lost && !ended) setEnded(lostEnding(lost));
  }, [lost]);

  useEffect(() => {
    if (!ended) return;
    if ('status' in ended) {
      options.onEnd?.();
      host.emit('prep:completed', { session_id: sessionId, status: ended.status });
      if (ended.status === 'completed' || ended.status === 'timed_out') host.onEnded?.(ended.status);
    } else {
      host.emit('prep:error', { code: ended.error.code, message: ended.error.message });
    }
  }, [ended]);

  /** The candidate confirmed: `path` (finalize, submit) ends the session; the dialog closes either way. */
  const finish = async (path: string, dialog: HTMLDialogElement | null) => {
    setFinishing(true);
    try {
      await host.api.post(path);
      dialog?.close();
      setEnded({ status: 'completed' });
    } catch (e) {
      dialog?.close();
      fail(e);
    } finally {
      setFinishing(false);
    }
  };

  /** What a room shows before it has opened: progress, or what went wrong with a way to try again. */
  const openingPage = (branding: Branding) => (
    <div class="prep-page" style={brandStyle(branding)}>
      <div class="prep-card" role="status">
        {banner ? (
          <>
            <p>{banner}</p>
            <button type="button" class="prep-button" onClick={() => { setBanner(null); setOpening((n) => n + 1); }}>Try again</button>
          </>
        ) : <p class="prep-loading">Opening your assessment…</p>}
      </div>
    </div>
  );

  /** The terminal page, once ended. */
  const endedPage = (branding: Branding) =>
    ended ? <EndedPage branding={branding} ended={ended} extra={host.finishedExtra} notice={host.notice ?? noticeFor} /> : null;

  return { ended, setEnded, banner, setBanner, fail, opening, finishing, finish, openingPage, endedPage };
}

/** The terminal pages every room shares. */
export function EndedPage({ branding, ended, extra, notice: noticeOf }: { branding: Branding; ended: Ended; extra?: preact.ComponentChildren; notice(code: string): Notice }) {
  if ('error' in ended) return <NoticePage branding={branding} notice={noticeOf(ended.error.code)} tone="warning" />;
  const notice: Notice = TERMINAL[ended.status];
  const tone = ended.status === 'completed' ? 'success' : ended.status === 'timed_out' ? 'info' : 'warning';
  return <NoticePage branding={branding} notice={notice} tone={tone}>{ended.status === 'completed' || ended.status === 'timed_out' ? extra : null}</NoticePage>;
}
