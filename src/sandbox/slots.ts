import type { SlotIdentity } from './runner.js';

export type Priority = 'interactive' | 'batch';

interface Waiter {
  priority: Priority;
  grant(slot: SlotIdentity): void;
}

/**
 * A fixed set of execution slots, each with its own uid. Interactive work (a candidate's run) goes before
 * batch work (judging); an interactive caller that would wait too long is told so instead of piling up.
 */
export class SlotPool {
  private readonly free: SlotIdentity[];
  private readonly waiting: Waiter[] = [];

  constructor(readonly identities: SlotIdentity[]) {
    this.free = [...identities];
  }

  get size(): number {
    return this.identities.length;
  }

  /** Waiting interactive callers beyond this many are refused at once. */
  get maxInteractiveQueue(): number {
    return this.identities.length * 4;
  }

  /** A free slot; null when an interactive caller would wait longer than `maxWaitMs` or the queue is full. */
  acquire(priority: Priority, maxWaitMs = Infinity): Promise<SlotIdentity | null> {
    const slot = this.free.pop();
    if (slot) return Promise.resolve(slot);
    if (priority === 'interactive' && this.waiting.filter((w) => w.priority === 'interactive').length >= this.maxInteractiveQueue) {
      return Promise.resolve(null);
    }
    return new Promise((resolve) => {
      let timer: NodeJS.Timeout | undefined;
      const waiter: Waiter = {
        priority,
        grant: (s) => {
          if (timer) clearTimeout(timer);
          resolve(s);
        },
      };
      if (Number.isFinite(maxWaitMs)) {
        timer = setTimeout(() => {
          const i = this.waiting.indexOf(waiter);
          if (i >= 0) this.waiting.splice(i, 1);
          resolve(null);
        }, maxWaitMs);
      }
      // Interactive waiters queue ahead of every batch waiter.
      const firstBatch = this.waiting.findIndex((w) => w.priority === 'batch');
      if (priority === 'interactive' && firstBatch >= 0) this.waiting.splice(firstBatch, 0, waiter);
      else this.waiting.push(waiter);
    });
  }

  release(slot: SlotIdentity): void {
    const next = this.waiting.shift();
    if (next) next.grant(slot);
    else this.free.push(slot);
  }

  /** Runs `fn` holding a slot; null when none could be had (see acquire). */
  async with<T>(priority: Priority, maxWaitMs: number, fn: (slot: SlotIdentity) => Promise<T>): Promise<{ value: T } | null> {
    const slot = await this.acquire(priority, maxWaitMs);
    if (!slot) return null;
    try {
      return { value: await fn(slot) };
    } finally {
      this.release(slot);
    }
  }
}
