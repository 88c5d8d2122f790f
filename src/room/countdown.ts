/**
 * The server owns the clock: the room counts down locally between polls and, whenever the server answers,
 * keeps the smaller of its own value and the server's (a local clock may run slow; it never adds time).
 */
export class Countdown {
  private anchorRemaining = Infinity;
  private anchorAt = 0;

  constructor(private readonly now: () => number = () => performance.now()) {}

  /** Seconds left by the local count, or Infinity before the first sync. */
  remaining(): number {
    if (this.anchorRemaining === Infinity) return Infinity;
    return Math.max(0, this.anchorRemaining - (this.now() - this.anchorAt) / 1000);
  }

  sync(serverRemaining: number): number {
    const merged = Math.min(this.remaining(), Math.max(0, serverRemaining));
    this.anchorRemaining = merged;
    this.anchorAt = this.now();
    return merged;
  }
}

/** 1:02:03, 12:05, 0:09. */
export function formatClock(seconds: number): string {
  const s = Math.max(0, Math.ceil(seconds));
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const sec = String(s % 60).padStart(2, '0');
  return h > 0 ? `${h}:${String(m).padStart(2, '0')}:${sec}` : `${m}:${sec}`;
}

/** "1 hour 30 minutes", "45 minutes". */
export function formatDuration(seconds: number): string {
  const minutes = Math.round(seconds / 60);
  const h = Math.floor(minutes / 60);
  const m = minutes % 60;
  const parts = [];
  if (h) parts.push(`${h} hour${h === 1 ? '' : 's'}`);
  if (m || !h) parts.push(`${m} minute${m === 1 ? '' : 's'}`);
  return parts.join(' ');
}
