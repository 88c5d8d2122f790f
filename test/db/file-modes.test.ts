import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { openDatabase } from '../../src/db/database.js';
import { loadEncryptionKey } from '../../src/platform/encryption.js';

// Was a bug: the data directory was made 0755 and prep.sqlite (candidates' data, key hashes) 0644 under the usual
// umask: readable by every local user. Only encryption.key was owner-only.
let root: string;
beforeEach(() => {
  root = mkdtempSync(path.join(tmpdir(), 'prep-file-modes-'));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const groupOrOther = (file: string) => statSync(file).mode & 0o077;

it('makes the data directory and the SQLite database with its WAL files readable by their owner only', async () => {
  const dataDir = path.join(root, 'nested', 'data');
  const db = openDatabase({ databaseUrl: null, dataDir });
  await sql`create table t (x integer)`.execute(db.kysely);
  await sql`insert into t values (1)`.execute(db.kysely);
  const files = ['prep.sqlite', 'prep.sqlite-wal', 'prep.sqlite-shm'].map((f) => path.join(dataDir, f));
  const modes = Object.fromEntries([dataDir, path.join(root, 'nested'), ...files].map((f) => [f, groupOrOther(f)]));
  await db.close();
  for (const [file, mode] of Object.entries(modes)) expect(mode, file).toBe(0);
});

it('makes the data directory owner-only when the encryption key is the first thing written to it', () => {
  const dataDir = path.join(root, 'keys-first');
  loadEncryptionKey({ encryptionKey: null, dataDir });
  expect(groupOrOther(dataDir)).toBe(0);
  expect(groupOrOther(path.join(dataDir, 'encryption.key'))).toBe(0);
});

// Was a twin: the key's own recursive mkdir (the data directory's only maker with PostgreSQL) kept the spin under
// /proc and the bare error through a file that PREP_DATA_DIR's maker had lost.
it('refuses a data directory through a file in a sentence naming PREP_DATA_DIR when the key is written first', async () => {
  const { ConfigError } = await import('../../src/config.js');
  const file = path.join(root, 'a-file');
  writeFileSync(file, '');
  const dataDir = path.join(file, 'data');
  const refused = (() => { try { return loadEncryptionKey({ encryptionKey: null, dataDir }); } catch (e) { return e; } })();
  expect(refused).toBeInstanceOf(ConfigError);
  expect((refused as Error).message).toContain(`PREP_DATA_DIR (${dataDir}): not a directory`);
});

it('makes a storage directory of its own (PREP_STORAGE_DIR) owner-only as it writes the first file', async () => {
  const { createLocalStorage } = await import('../../src/storage/local.js');
  const dir = path.join(root, 'files');
  const storage = createLocalStorage({ dir, publicUrl: 'http://localhost:8080', secret: () => Buffer.alloc(32, 7) });
  await storage.write('resumes/a/resume.pdf', Buffer.from('%PDF-1.4'), 'application/pdf');
  await storage.close();
  expect(groupOrOther(dir)).toBe(0);
  expect(groupOrOther(path.join(dir, 'resumes'))).toBe(0);
});

// Was a bug: PREP_STORAGE_DIR and PREP_SANDBOX_DIR were made by Node's recursive mkdir, which spins for ever (at 100%
// CPU, on a libuv thread, its caller never answered) under /proc and fails with a bare ENOTDIR through a file, as
// PREP_DATA_DIR did before. Each is now a ConfigError naming its setting, at once.
it('refuses a storage or sandbox directory under /proc or through a file in a sentence naming its setting', { timeout: 60_000 }, async () => {
  const { createLocalStorage } = await import('../../src/storage/local.js');
  const { launcherBinary } = await import('../../src/sandbox/launcher.js');
  const { ConfigError } = await import('../../src/config.js');
  const file = path.join(root, 'a-file');
  writeFileSync(file, '');
  for (const [dir, why] of [['/proc/prep-nope', 'cannot be made'], [path.join(file, 'below'), 'not a directory']] as const) {
    const storage = createLocalStorage({ dir, publicUrl: 'http://localhost:8080', secret: () => Buffer.alloc(32, 7) });
    const stored = await storage.write('resumes/a/resume.pdf', Buffer.from('%PDF-1.4'), 'application/pdf').catch((e: unknown) => e);
    await storage.close();
    expect(stored, dir).toBeInstanceOf(ConfigError);
    expect((stored as Error).message, dir).toContain(`PREP_STORAGE_DIR (${dir}`);
    expect((stored as Error).message, dir).toContain(why);
    const built = await launcherBinary(dir).catch((e: unknown) => e);
    expect(built, dir).toBeInstanceOf(ConfigError);
    expect((built as Error).message, dir).toContain(`PREP_SANDBOX_DIR (${dir}): `);
    expect((built as Error).message, dir).toContain(why);
  }
});
