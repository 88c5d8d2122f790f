import { availableParallelism } from 'node:os';
import { defineConfig, type ViteUserConfig } from 'vitest/config';
import { tcpReachable } from './test/helpers/reachable.js';

/** True when PostgreSQL answers on the test address (CI starts it; a laptop may not have it). */
function postgresReachable(): Promise<boolean> {
  const url = new URL(process.env.PREP_TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test');
  return tcpReachable(url.hostname, Number(url.port || 5432));
}

/** One suite, run once per engine (as Kysely's own tests do): SQLite always, PostgreSQL when reachable. */
export default defineConfig(async (): Promise<ViteUserConfig> => {
  const only = process.env.PREP_TEST_DIALECTS?.split(',').map((d) => d.trim());
  const wanted = only ?? ['sqlite', 'postgres'];
  const dialects = wanted.includes('sqlite') ? ['sqlite'] : [];
  if (wanted.includes('postgres')) {
    if (await postgresReachable()) dialects.push('postgres');
    else if (process.env.PREP_TEST_REQUIRE_PG === '1') throw new Error('PostgreSQL is required (PREP_TEST_REQUIRE_PG=1) but not reachable');
    else console.warn('PostgreSQL is not reachable: running the suite on SQLite only.');
  }
  return {
    test: {
      projects: dialects.map((dialect) => ({
        extends: true,
        test: {
          name: dialect, env: { PREP_TEST_DIALECT: dialect },
          // The sandbox, the catalogue's solutions, the room's own logic, the resume parser and scorer, prompt-engineering's, the interviewer's and the model prompts' pure parts (no database),
          // SQLite's own machinery (the read cache, background checkpoints) and the browser run once, with SQLite.
          ...(dialect === 'postgres' ? { exclude: ['**/node_modules/**', 'test/sandbox/**', 'test/db/read-cache.test.ts', 'test/db/file-modes.test.ts', 'test/db/checkpointer.test.ts', 'test/db/group-commit.test.ts', 'test/storage/webm-join.test.ts', 'test/storage/mp4-join.test.ts', 'test/catalog/**', 'test/room/**', 'test/resumes/**', 'test/prompt-engineering/**', 'test/interviews/**', 'test/ai/**', 'test/browser/**'] } : {}),
        },
      })),
      include: ['test/**/*.test.ts'],
      globalSetup: ['test/helpers/build.ts'],
      testTimeout: 30_000,
      // expect.poll's own default gives up after 1 s: short for a page, a worker or a socket on a loaded 2-core machine.
      // A poll ends as soon as it holds, so only a failing one waits longer.
      expect: { poll: { timeout: 10_000 } },
      hookTimeout: 60_000,
      pool: 'forks' as const,
      // Two files at a time at least: vitest's default (one fewer than the cores) runs one at a time on the 2-core CI
      // machines, where most files wait on a database, a sandbox or a browser (SQLite ~1,100 s → ~900 s, PostgreSQL
      // ~1,050 s → ~650 s). Files share nothing: each has its own database (SQLite file or PostgreSQL schema), ports
      // and sandbox user ids.
      maxWorkers: Math.max(2, availableParallelism() - 1),
    },
  };
});
