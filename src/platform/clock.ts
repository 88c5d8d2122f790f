/** The one source of "now" (milliseconds since the epoch); tests inject their own. */
export interface Clock {
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

/** API timestamps are whole Unix seconds. */
export function toUnixSeconds(ms: number): number;
export function toUnixSeconds(ms: number | null): number | null;
export function toUnixSeconds(ms: number | null): number | null {
  return ms === null ? null : Math.floor(ms / 1000);
}

/** A clock tests can move by hand. */
export class ManualClock implements Clock {
  constructor(private ms = Date.now()) {}
  now(): number {
    return this.ms;
  }
  advance(ms: number): void {
    this.ms += ms;
  }
  set(ms: number): void {
    this.ms = ms;
  }
}
