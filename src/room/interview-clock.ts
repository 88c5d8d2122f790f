import type { ChannelClock } from './interview-channel.js';

/**
 * The interview's clock as the channel last told it (every 5 s, and on every change): counted down locally while
 * it runs, held while the interview is paused. Unlike a timed assessment's countdown, a paused interview's time
 * does not run out, so a later server value may be larger than the local count and wins.
 */
export class InterviewClock {
  private seconds: number | null = null;
  private at = 0;
  private running = false;

  constructor(private readonly now: () => number = () => performance.now()) {}

  sync(clock: Pick<ChannelClock, 'running' | 'remaining_seconds'>): void {
    if (!Number.isFinite(clock.remaining_seconds)) return;
    this.seconds = Math.max(0, clock.remaining_seconds);
    this.at = this.now();
    this.running = clock.running;
  }

  /** Seconds left, or null before the server has said. */
  remaining(): number | null {
    if (this.seconds === null) return null;
    return this.running ? Math.max(0, this.seconds - (this.now() - this.at) / 1000) : this.seconds;
  }

  get isRunning(): boolean {
    return this.running;
  }
}
