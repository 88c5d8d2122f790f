/** A wait for a turn that ran past its limit: the task was not started. */
export class WaitTimeout extends Error {}

/**
 * Runs at most `size` tasks at once; the rest wait their turn, first come first served. A finished task hands its
 * place straight to the next waiting one, so a task asked for in between cannot take it too. With `maxWaitMs`, a task
 * that has waited that long is not started: its call rejects with WaitTimeout.
 */
export function createLimiter(size: number, options: { maxWaitMs?: number } = {}) {
  let active = 0;
  const waiting: Array<() => void> = [];
  const release = () => {
    const next = waiting.shift();
    if (next) next();
    else active--;
  };
  const turn = () => new Promise<void>((start, reject) => {
    const timer = options.maxWaitMs === undefined ? null : setTimeout(() => {
      waiting.splice(waiting.indexOf(go), 1);
      reject(new WaitTimeout(`waited ${options.maxWaitMs} ms for a turn`));
    }, options.maxWaitMs);
    const go = () => {
      if (timer) clearTimeout(timer);
      start();
    };
    waiting.push(go);
  });
  return async function limited<T>(task: () => Promise<T>): Promise<T> {
    if (active < size) active++;
    else await turn();
    try {
      return await task();
    } finally {
      release();
    }
  };
}

export type Limiter = ReturnType<typeof createLimiter>;
