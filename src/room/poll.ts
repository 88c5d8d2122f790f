import { RoomError, type Api } from './api.js';

const FIRST_POLL_MS = 1000;

/**
 * Polls `path` until `done` (a submission judged, an attempt graded), reporting each state on the way: every second
 * at first, then less often; transient failures are retried. Null when the room closed; after 15 minutes the last
 * state seen is returned (the work is stuck: it stays listed and the report counts it once finished).
 */
export async function pollUntil<T>(api: Api, path: string, done: (x: T) => boolean, onUpdate: (x: T) => void, signal: AbortSignal): Promise<T | null> {
  const started = Date.now();
  let last: T | null = null;
  for (let n = 0; ; n++) {
    await new Promise((r) => setTimeout(r, Math.min(FIRST_POLL_MS * 1.3 ** n, 5000)));
    if (signal.aborted) return null;
    try {
      last = await api.get<T>(path);
    } catch (e) {
      if (!(e instanceof RoomError && e.transient)) throw e;
    }
    if (last && done(last)) return last;
    if (last) onUpdate(last);
    if (Date.now() - started > 15 * 60_000) return last;
  }
}
