import { sql, type Kysely } from 'kysely';
import { columnTypes } from './types.js';

/** Shared catalogues (organization_id null) plus each organisation's own entries. */
export async function up(db: Kysely<any>): Promise<void> {
  const t = columnTypes(db);

  await db.schema
    .createTable('round_types')
    .addColumn('id', t.id, (c) => c.primaryKey())
    .addColumn('organization_id', t.id, (c) => c.references('organizations.id').onDelete('cascade'))
    .addColumn('slug', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('description', 'text', (c) => c.notNull())
    .addColumn('duration_minutes', 'integer', (c) => c.notNull())
    .addColumn('created_at', t.time, (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('companies')
    .addColumn('id', t.id, (c) => c.primaryKey())
    .addColumn('organization_id', t.id, (c) => c.references('organizations.id').onDelete('cascade'))
    .addColumn('slug', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('industry', 'text', (c) => c.notNull())
    .addColumn('size', 'text', (c) => c.notNull())
    .addColumn('headquarters', 'text')
    .addColumn('created_at', t.time, (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('jobs')
    .addColumn('id', t.id, (c) => c.primaryKey())
    .addColumn('organization_id', t.id, (c) => c.references('organizations.id').onDelete('cascade'))
    .addColumn('slug', 'text', (c) => c.notNull())
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('company_id', t.id, (c) => c.references('companies.id').onDelete('set null'))
    .addColumn('level', 'text', (c) => c.notNull())
    .addColumn('location', 'text')
    .addColumn('employment_type', 'text', (c) => c.notNull())
    .addColumn('description', 'text', (c) => c.notNull())
    .addColumn('skills', 'text', (c) => c.notNull())
    .addColumn('created_at', t.time, (c) => c.notNull())
    .execute();

  for (const table of ['round_types', 'companies', 'jobs']) {
    // One slug per scope: shared entries, and each organisation's own.
    await db.schema.createIndex(`${table}_shared_slug_uq`).on(table).column('slug').unique().where(sql.ref('organization_id'), 'is', null).execute();
    await db.schema.createIndex(`${table}_org_slug_uq`).on(table).columns(['organization_id', 'slug']).unique().execute();
  }

  // The shared entries themselves load through prepareDatabase (src/catalogues.ts) and `prep seed`, not here.
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const table of ['jobs', 'companies', 'round_types']) await db.schema.dropTable(table).ifExists().execute();
}
