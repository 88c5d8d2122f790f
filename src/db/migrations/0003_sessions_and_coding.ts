import { sql, type Kysely } from 'kysely';
import { columnTypes } from './types.js';

/** Candidate access (signing keys, domains, session tokens, launch links) and the coding catalogue and sessions. */
export async function up(db: Kysely<any>): Promise<void> {
  const t = columnTypes(db);

  await db.schema.createTable('signing_keys')
    .addColumn('kid', 'text', (c) => c.primaryKey())
    .addColumn('public_jwk', 'text', (c) => c.notNull())
    .addColumn('private_key', 'text', (c) => c.notNull()) // PKCS#8, AES-256-GCM encrypted with the configured key
    .addColumn('created_at', t.time, (c) => c.notNull())
    .addColumn('retired_at', t.time)
    .execute();

  await db.schema.createTable('domains')
    .addColumn('id', t.id, (c) => c.primaryKey())
    .addColumn('organization_id', t.id, (c) => c.notNull().references('organizations.id').onDelete('cascade'))
    .addColumn('livemode', t.flag, (c) => c.notNull())
    .addColumn('origin', 'text', (c) => c.notNull())
    .addColumn('created_by_key_id', t.id)
    .addColumn('created_at', t.time, (c) => c.notNull())
    .addUniqueConstraint('domains_origin_uq', ['organization_id', 'livemode', 'origin'])
    .execute();
  await db.schema.createIndex('domains_page_idx').on('domains').columns(['organization_id', 'livemode', 'id']).execute();
  await db.schema.createIndex('domains_origin_idx').on('domains').column('origin').execute();

  await db.schema.createTable('session_tokens')
    .addColumn('jti', t.id, (c) => c.primaryKey())
    .addColumn('organization_id', t.id, (c) => c.notNull().references('organizations.id').onDelete('cascade'))
    .addColumn('livemode', t.flag, (c) => c.notNull())
    .addColumn('subject_kind', 'text', (c) => c.notNull())
    .addColumn('subject_id', t.id, (c) => c.notNull())
    .addColumn('origin', 'text', (c) => c.notNull())
    .addColumn('source', 'text', (c) => c.notNull())
    .addColumn('root_jti', t.id) // a refreshed token's original: revoking the original revokes its refreshes
    .addColumn('created_at', t.time, (c) => c.notNull())
    .addColumn('expires_at', t.time, (c) => c.notNull())
    .addColumn('revoked_at', t.time)
    .execute();
  await db.schema.createIndex('session_tokens_expiry_idx').on('session_tokens').column('expires_at').execute();
  await db.schema.createIndex('session_tokens_root_idx').on('session_tokens').column('root_jti').execute();

  await db.schema.createTable('launch_links')
    .addColumn('id', t.id, (c) => c.primaryKey())
    .addColumn('organization_id', t.id, (c) => c.notNull().references('organizations.id').onDelete('cascade'))
    .addColumn('livemode', t.flag, (c) => c.notNull())
    .addColumn('subject_kind', 'text', (c) => c.notNull())
    .addColumn('subject_id', t.id, (c) => c.notNull())
    .addColumn('token_hash', 'text', (c) => c.notNull().unique())
    .addColumn('redirect_url', 'text')
    .addColumn('created_at', t.time, (c) => c.notNull())
    .addColumn('expires_at', t.time, (c) => c.notNull())
    .addColumn('used_at', t.time)
    .execute();

  await db.schema.createTable('coding_problems')
    .addColumn('id', t.id, (c) => c.primaryKey())
    .addColumn('organization_id', t.id, (c) => c.references('organizations.id').onDelete('cascade'))
    .addColumn('slug', 'text', (c) => c.notNull())
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('difficulty', 'text', (c) => c.notNull())
    .addColumn('skills', 'text', (c) => c.notNull())
    .addColumn('statement', 'text', (c) => c.notNull())
    .addColumn('input_format', 'text', (c) => c.notNull())
    .addColumn('output_format', 'text', (c) => c.notNull())
    .addColumn('constraints', 'text', (c) => c.notNull())
    .addColumn('examples', 'text', (c) => c.notNull())
    .addColumn('hidden_cases', 'text', (c) => c.notNull())
    .addColumn('expected_complexity', 'text', (c) => c.notNull())
    .addColumn('comparator', 'text', (c) => c.notNull())
    .addColumn('time_limit_ms', 'integer', (c) => c.notNull())
    .addColumn('memory_limit_mb', 'integer', (c) => c.notNull())
    .addColumn('created_at', t.time, (c) => c.notNull())
    .execute();

  await db.schema.createTable('coding_tests')
    .addColumn('id', t.id, (c) => c.primaryKey())
    .addColumn('organization_id', t.id, (c) => c.references('organizations.id').onDelete('cascade'))
    .addColumn('slug', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('description', 'text', (c) => c.notNull())
    .addColumn('difficulty', 'text', (c) => c.notNull())
    .addColumn('skills', 'text', (c) => c.notNull())
    .addColumn('duration_minutes', 'integer')
    .addColumn('created_at', t.time, (c) => c.notNull())
    .execute();

  for (const table of ['coding_problems', 'coding_tests']) {
    await db.schema.createIndex(`${table}_shared_slug_uq`).on(table).column('slug').unique().where(sql.ref('organization_id'), 'is', null).execute();
    await db.schema.createIndex(`${table}_org_slug_uq`).on(table).columns(['organization_id', 'slug']).unique().execute();
  }

  await db.schema.createTable('coding_test_slots')
    .addColumn('id', t.id, (c) => c.primaryKey())
    .addColumn('test_id', t.id, (c) => c.notNull().references('coding_tests.id').onDelete('cascade'))
    .addColumn('position', 'integer', (c) => c.notNull())
    .addColumn('title', 'text', (c) => c.notNull())
    .addUniqueConstraint('coding_test_slots_uq', ['test_id', 'position'])
    .execute();

  await db.schema.createTable('coding_slot_problems')
    .addColumn('slot_id', t.id, (c) => c.notNull().references('coding_test_slots.id').onDelete('cascade'))
    .addColumn('problem_id', t.id, (c) => c.notNull().references('coding_problems.id').onDelete('cascade'))
    .addColumn('position', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('coding_slot_problems_pk', ['slot_id', 'problem_id'])
    .execute();

  await db.schema.createTable('coding_sessions')
    .addColumn('id', t.id, (c) => c.primaryKey())
    .addColumn('organization_id', t.id, (c) => c.notNull().references('organizations.id').onDelete('cascade'))
    .addColumn('livemode', t.flag, (c) => c.notNull())
    .addColumn('candidate_id', t.id) // null once the candidate is erased
    .addColumn('test_id', t.id, (c) => c.notNull().references('coding_tests.id'))
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('duration_seconds', 'integer')
    .addColumn('credit_reservation_id', t.id)
    .addColumn('created_at', t.time, (c) => c.notNull())
    .addColumn('updated_at', t.time, (c) => c.notNull())
    .addColumn('started_at', t.time)
    .addColumn('deadline_at', t.time)
    .addColumn('ended_at', t.time)
    .execute();
  await db.schema.createIndex('coding_sessions_page_idx').on('coding_sessions').columns(['organization_id', 'livemode', 'id']).execute();
  await db.schema.createIndex('coding_sessions_candidate_idx').on('coding_sessions').columns(['candidate_id', 'test_id']).execute();
  await db.schema.createIndex('coding_sessions_deadline_idx').on('coding_sessions').columns(['status', 'deadline_at']).execute();

  await db.schema.createTable('coding_session_problems')
    .addColumn('session_id', t.id, (c) => c.notNull().references('coding_sessions.id').onDelete('cascade'))
    .addColumn('position', 'integer', (c) => c.notNull())
    .addColumn('slot_title', 'text', (c) => c.notNull())
    .addColumn('problem_id', t.id, (c) => c.notNull().references('coding_problems.id'))
    .addColumn('attempts_used', 'integer', (c) => c.notNull())
    .addColumn('scored', t.flag, (c) => c.notNull())
    .addPrimaryKeyConstraint('coding_session_problems_pk', ['session_id', 'position'])
    .execute();

  await db.schema.createTable('proctoring_events')
    .addColumn('id', t.id, (c) => c.primaryKey())
    .addColumn('organization_id', t.id, (c) => c.notNull().references('organizations.id').onDelete('cascade'))
    .addColumn('livemode', t.flag, (c) => c.notNull())
    .addColumn('subject_kind', 'text', (c) => c.notNull())
    .addColumn('subject_id', t.id, (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('meta', 'text')
    .addColumn('created_at', t.time, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('proctoring_events_subject_idx').on('proctoring_events').columns(['subject_kind', 'subject_id']).execute();

  // The catalogue is loaded by 0006, once its tables have every column the loader writes.
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const table of [
    'proctoring_events', 'coding_session_problems', 'coding_sessions', 'coding_slot_problems', 'coding_test_slots',
    'coding_tests', 'coding_problems', 'launch_links', 'session_tokens', 'domains', 'signing_keys',
  ]) await db.schema.dropTable(table).ifExists().execute();
}
