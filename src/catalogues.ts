import type { Db } from './db/database.js';
import { migrateToLatest } from './db/migrate.js';
import { seedCatalogues } from './modules/catalogues/seed.js';
import { seedCodingCatalogue } from './modules/coding/catalog-seed.js';
import { loadPromptCatalogue } from './modules/prompt-engineering/catalog.js';
import { loadPsychometricCatalogue } from './modules/psychometric/catalog.js';
import { loadQuestionBank } from './modules/question-bank/catalog.js';

/**
 * Migrations, then the shared catalogues a database must hold (instruments the database does not have yet), by one
 * process at a time. Every entry point that opens a database for the service runs it: `prep serve`, `prep worker`, `prep migrate`, the
 * other commands, the tests. Catalogue data loads here, never from a migration.
 */
export function prepareDatabase(db: Db): Promise<string[]> {
  // One process at a time: `prep serve` and `prep worker` started together would otherwise both apply a migration
  // (SQLite has no migration lock) or both load a catalogue, and one of them fail half-way.
  return db.exclusive(() => prepare(db));
}

async function prepare(db: Db): Promise<string[]> {
  const applied = await migrateToLatest(db);
  await seedCatalogues(db.kysely); // round types, companies, jobs: adds only what is missing
  // A database without the shared coding catalogue gets it whole; `prep seed` refreshes an existing one.
  const codingLoaded = await db.kysely.selectFrom('coding_problems').select('id').where('organization_id', 'is', null).limit(1).executeTakeFirst();
  if (!codingLoaded) await seedCodingCatalogue(db.kysely);
  await loadPsychometricCatalogue(db.kysely);
  await loadPromptCatalogue(db.kysely); // writes only the tasks and assessments that changed
  await loadQuestionBank(db.kysely); // writes only what changed in catalog/question-bank
  return applied;
}
