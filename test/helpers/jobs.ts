import type { Harness } from './harness.js';

/** A worker log that says nothing (failures are expected in these tests). */
export const silentLog = { error: () => {} };

/** The job tests' tools: a kind of job no other test uses, and the jobs of a kind in the order they were made. */
export function jobsKit(h: () => Harness, prefix: string) {
  let seq = 0;
  return {
    freshKind: () => `${prefix}.kind-${++seq}-${Date.now()}`,
    jobsOf: (kind: string) => h().db.kysely.selectFrom('background_jobs').selectAll().where('kind', '=', kind).orderBy('id').execute(),
  };
}
