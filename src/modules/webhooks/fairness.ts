/** Deliveries an organisation whose receivers are slow may have in flight at once, per process. */
export const SLOW_ORGANIZATION_DELIVERIES = 2;
/**
 * Deliveries of slow organisations in flight at once, all of them together, per process: under the worker's 16
 * slots, so fast receivers and every other kind of job keep most of them however many customers' servers hang.
 */
export const SLOW_DELIVERIES = 6;
/** How long an organisation counts as slow after one of its deliveries was. */
const SLOW_FOR_MS = 60_000;

/**
 * Shares a worker's slots between webhook receivers: an organisation whose receivers are slow (a delivery that took
 * at least `slowMs`, in the last minute or now) holds at most SLOW_ORGANIZATION_DELIVERIES of them, slow
 * organisations together at most SLOW_DELIVERIES, and their other due deliveries wait. One customer's hanging server
 * therefore holds up neither other customers' events nor the service's other work. Fast receivers are never limited.
 * Elapsed times are the process's monotonic clock (they measure network calls, not domain time). A delivery ends when
 * its send does, at the time-out at the latest; a name lookup still running then holds no shared slot (c-ares, see
 * platform/outbound/guard.ts) and gives up on its own, so it needs no counting here.
 */
export function createDeliveryFairness(options: { slowMs: number; now?: () => number }) {
  const now = options.now ?? (() => performance.now());
  /** Per organisation, when each of its deliveries in flight started. */
  const running = new Map<string, Set<{ startedAt: number }>>();
  const slowUntil = new Map<string, number>();

  const isSlow = (org: string, at: number) => {
    const until = slowUntil.get(org);
    if (until !== undefined && until > at) return true;
    if (until !== undefined) slowUntil.delete(org);
    for (const d of running.get(org) ?? []) if (at - d.startedAt >= options.slowMs) return true;
    return false;
  };

  return {
    /** Whether the organisation's next delivery must wait for deliveries in flight to end. */
    mustWait(org: string): boolean {
      const at = now();
      if (!isSlow(org, at)) return false;
      if ((running.get(org)?.size ?? 0) >= SLOW_ORGANIZATION_DELIVERIES) return true;
      let slow = 0;
      for (const [other, mine] of running) if (isSlow(other, at)) slow += mine.size;
      return slow >= SLOW_DELIVERIES;
    },

    /** A delivery of the organisation starts; the function returned ends it. */
    begin(org: string): () => void {
      const delivery = { startedAt: now() };
      const mine = running.get(org) ?? new Set();
      mine.add(delivery);
      running.set(org, mine);
      return () => {
        const at = now();
        if (at - delivery.startedAt >= options.slowMs) slowUntil.set(org, at + SLOW_FOR_MS);
        mine.delete(delivery);
        if (mine.size === 0) running.delete(org);
      };
    },
  };
}

export type DeliveryFairness = ReturnType<typeof createDeliveryFairness>;
