import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { buildApp, type BuildOptions } from '../../src/app.js';
import type { App } from '../../src/app-types.js';
import { loadConfig, type Config } from '../../src/config.js';
import { openDatabase, type Db } from '../../src/db/database.js';
import { prepareDatabase } from '../../src/catalogues.js';
import type { OrganizationKeys } from '../../src/modules/organizations/service.js';
import { ManualClock } from '../../src/platform/clock.js';
import type { Services } from '../../src/services.js';
import type { ModuleServices } from '../../src/modules/index.js';

/** Which engine this run tests: set per vitest project (see vitest.config.ts). */
export const DIALECT = (process.env.PREP_TEST_DIALECT ?? 'sqlite') as 'sqlite' | 'postgres';
export const PG_URL = process.env.PREP_TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

export interface Org {
  id: string;
  keys: OrganizationKeys;
}

export interface Harness {
  app: App;
  db: Db;
  services: Services;
  /** Module services (candidate access, coding, domains, …) for direct calls such as the timeout sweep. */
  modules: ModuleServices;
  config: Config;
  clock: ManualClock;
  /** An organisation with 10 credits of every kind in both environments. */
  org: Org;
  /** Environment variables that point another process at this harness's database. */
  env: Record<string, string>;
  createOrg(name?: string, credits?: number): Promise<Org>;
  close(): Promise<void>;
}

export interface HarnessOptions {
  env?: Record<string, string>;
  extend?: BuildOptions['extend'];
}

/** A throwaway database: a temporary SQLite directory, or a fresh PostgreSQL schema. */
export async function throwawayDatabase(): Promise<{ env: Record<string, string>; drop(): Promise<void> }> {
  if (DIALECT === 'postgres') {
    const schema = `t_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 8)}`;
    const admin = new pg.Client({ connectionString: PG_URL });
    await admin.connect();
    await admin.query(`create schema ${schema}`);
    await admin.end();
    return {
      env: { DATABASE_URL: PG_URL, PREP_DATABASE_SCHEMA: schema },
      async drop() {
        const c = new pg.Client({ connectionString: PG_URL });
        await c.connect();
        await c.query(`drop schema if exists ${schema} cascade`);
        await c.end();
      },
    };
  }
  const dir = mkdtempSync(path.join(tmpdir(), 'prep-test-'));
  return { env: { PREP_DATA_DIR: dir }, drop: async () => rmSync(dir, { recursive: true, force: true }) };
}

export async function startHarness(options: HarnessOptions = {}): Promise<Harness> {
  const database = await throwawayDatabase();
  const files = mkdtempSync(path.join(tmpdir(), 'prep-files-')); // stored objects, on either engine
  const env = {
    PREP_LOG_LEVEL: 'silent', PREP_PUBLIC_URL: 'http://localhost:8080', PREP_ENCRYPTION_KEY: 'ab'.repeat(32), PREP_STORAGE_DIR: files,
    ...database.env, ...options.env,
  };
  const config = loadConfig(env);
  const db = openDatabase(config);
  await prepareDatabase(db);
  const clock = new ManualClock();
  const { app, services, modules } = await buildApp({ config, db, clock, logger: false, extend: options.extend });

  const createOrg = async (name = 'Acme', credits = 10): Promise<Org> => {
    const created = await services.organizations.create(name, credits);
    return { id: created.organization.id, keys: created.keys };
  };
  const org = await createOrg();

  return {
    app, db, services, modules, config, clock, org, env, createOrg,
    async close() {
      await app.close();
      await db.close();
      await database.drop();
      rmSync(files, { recursive: true, force: true });
    },
  };
}

/** Headers for a key, as `Authorization: Bearer`. */
export function bearer(key: string, extra: Record<string, string> = {}): Record<string, string> {
  return { authorization: `Bearer ${key}`, ...extra };
}
