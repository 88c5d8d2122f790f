/** Runs at most `size` tasks at once; the rest wait their turn, first come first served. */
export function createLimiter(size: number) {
  let active = 0;
  const waiting: Array<() => void> = [];
  return async function limited<T>(task: () => Promise<T>): Promise<T> {
    if (active >= size) await new Promise<void>((resolve) => waiting.push(resolve));
    active++;
    try {
      return await task();
    } finally {
      active--;
      waiting.shift()?.();
    }
  };
}

export type Limiter = ReturnType<typeof createLimiter>;
