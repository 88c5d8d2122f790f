import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { RoomError, type Api } from './api.js';
import { Countdown, formatClock } from './countdown.js';
import { endedBy, type Ended, type RoomHost } from './lifecycle.js';
import { startProctoring } from './proctoring.js';
import type { Timer } from './types.js';

const TIMER_POLL_MS = 30_000;

/**
 * The server-owned clock of a timed room: ask the server at once, then count down every second and ask again
 * every 30 s (every 5 s while there is no server value yet or the local count is out), and at once when the tab
 * comes back. `lostEnding` reads a token lost after the local count ran out as time being up.
 */
export function useServerClock(options: { api: Api; base: string; active: boolean; setEnded(e: Ended): void; fail(e: unknown): void }) {
  const { api, base, active, setEnded, fail } = options;
  const countdown = useMemo(() => new Countdown(), []);
  const timed = useRef(false);
  const [remaining, setRemaining] = useState<number | null>(null);

  useEffect(() => {
    if (!active) return;
    let lastPoll = -Infinity; // performance.now() counts from page load: 0 may be only moments ago
    const tick = async () => {
      const local = countdown.remaining();
      if (timed.current && Number.isFinite(local)) setRemaining(local);
      const due = Number.isFinite(local) && local > 0 ? TIMER_POLL_MS : 5000;
      if (performance.now() - lastPoll < due) return;
      lastPoll = performance.now();
      try {
        const t = await api.get<Timer>(`${base}/timer`);
        const end = endedBy(t.status);
        if (end) return setEnded(end);
        timed.current = t.timed;
        if (t.timed) setRemaining(countdown.sync(t.remaining_seconds));
      } catch (e) {
        if (e instanceof RoomError && e.status !== 0 && e.status < 500) fail(e);
      }
    };
    void tick();
    const interval = setInterval(() => void tick(), 1000);
    // Back from sleep or another tab: ask the server now rather than trust a paused local count.
    const onVisible = () => {
      if (document.visibilityState === 'visible') lastPoll = -Infinity;
    };
    document.addEventListener('visibilitychange', onVisible);
    return () => {
      clearInterval(interval);
      document.removeEventListener('visibilitychange', onVisible);
    };
  }, [active]);

  return {
    remaining,
    timed,
    outOfTime: timed.current && remaining !== null && remaining <= 0,
    lostEnding: (e: RoomError): Ended => (timed.current && countdown.remaining() <= 0 ? { status: 'timed_out' } : { error: e }),
  };
}

/** Proctoring signals while the room is open. */
export function useProctoring(host: RoomHost, base: string, active: boolean) {
  useEffect(() => {
    if (!active) return;
    const rootNode = host.root instanceof Document ? host.root.body : host.root;
    return startProctoring({ root: rootNode, api: host.api, path: `${base}/events` });
  }, [active]);
}

/** The header's clock. */
export function Clock({ remaining, timed }: { remaining: number | null; timed: boolean }) {
  const low = remaining !== null && remaining <= 300;
  return (
    <span class={`prep-timer${low ? ' prep-timer-low' : ''}`} role="timer" aria-label="Time remaining" aria-live={low ? 'polite' : 'off'}>
      {!timed ? 'Untimed' : remaining === null ? '–:––' : formatClock(remaining)}
    </span>
  );
}
