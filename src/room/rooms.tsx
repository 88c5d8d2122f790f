import type { ComponentType } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { NoticePage } from './chrome.js';
import type { RoomProps } from './lifecycle.js';
import { noticeFor } from './messages.js';

type RoomLoader = () => Promise<ComponentType<RoomProps>>;

/**
 * One room per subject_kind: a new kind's room is a loader added here, not a fork of another room. Each room is
 * its own chunk, fetched when a session of its kind opens (a questionnaire never downloads the code editor).
 */
const ROOMS: Record<string, RoomLoader> = {
  coding: () => import('./coding-room.js').then((m) => m.CodingRoom),
  psychometric: () => import('./questionnaire-room.js').then((m) => m.QuestionnaireRoom),
  prompt_engineering: () => import('./prompt-room.js').then((m) => m.PromptRoom),
  interview: () => import('./interview-room.js').then((m) => m.InterviewRoom),
};

export const hasRoom = (kind: string): boolean => Object.hasOwn(ROOMS, kind);

/** Starts fetching a room's chunk early (the browser keeps the module, so the later load is instant). */
export function preloadRoom(kind: string): void {
  if (hasRoom(kind)) ROOMS[kind]!().catch(() => {}); // a failure is shown, with Try again, when the room opens
}

/** The room for `kind` once its chunk has arrived; a failed download says so and offers to try again. */
export function Room({ kind, ...props }: RoomProps & { kind: string }) {
  const [loaded, setLoaded] = useState<{ Room: ComponentType<RoomProps> } | null>(null);
  const [failed, setFailed] = useState(false);
  const [attempt, setAttempt] = useState(0);

  useEffect(() => {
    let current = true;
    ROOMS[kind]!().then(
      (Room) => current && setLoaded({ Room }),
      () => current && setFailed(true),
    );
    return () => { current = false; };
  }, [kind, attempt]);

  if (loaded) return <loaded.Room {...props} />;
  if (failed) {
    return (
      <NoticePage branding={props.branding} notice={noticeFor('network_error')} tone="warning">
        <button type="button" class="prep-button" onClick={() => { setFailed(false); setAttempt((n) => n + 1); }}>Try again</button>
      </NoticePage>
    );
  }
  return <div class="prep-page"><div class="prep-card" role="status"><p class="prep-loading">Opening your assessment…</p></div></div>;
}
