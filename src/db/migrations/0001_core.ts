import type { Kysely } from 'kysely';
import { columnTypes } from './types.js';

export async function up(db: Kysely<any>): Promise<void> {
  const t = columnTypes(db);

  await db.schema
    .createTable('organizations')
    .addColumn('id', t.id, (c) => c.primaryKey())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('api_enabled', t.flag, (c) => c.notNull().defaultTo(1))
    .addColumn('created_at', t.time, (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('organization_modules')
    .addColumn('organization_id', t.id, (c) => c.notNull().references('organizations.id').onDelete('cascade'))
    .addColumn('module', 'text', (c) => c.notNull())
    .addColumn('enabled', t.flag, (c) => c.notNull())
    .addColumn('updated_at', t.time, (c) => c.notNull())
    .addPrimaryKeyConstraint('organization_modules_pk', ['organization_id', 'module'])
    .execute();

  await db.schema
    .createTable('members')
    .addColumn('id', t.id, (c) => c.primaryKey())
    .addColumn('organization_id', t.id, (c) => c.notNull().references('organizations.id').onDelete('cascade'))
    .addColumn('email', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('role', 'text', (c) => c.notNull())
    .addColumn('created_at', t.time, (c) => c.notNull())
    .addUniqueConstraint('members_org_email_uq', ['organization_id', 'email'])
    .execute();
  await db.schema.createIndex('members_email_idx').on('members').column('email').execute();
  await db.schema.createIndex('members_page_idx').on('members').columns(['organization_id', 'id']).execute();

  await db.schema
    .createTable('api_keys')
    .addColumn('id', t.id, (c) => c.primaryKey())
    .addColumn('organization_id', t.id, (c) => c.notNull().references('organizations.id').onDelete('cascade'))
    .addColumn('livemode', t.flag, (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('name', 'text')
    .addColumn('key_hash', 'text', (c) => c.notNull().unique())
    .addColumn('key_hint', 'text', (c) => c.notNull())
    .addColumn('rate_limit', 'integer')
    .addColumn('created_at', t.time, (c) => c.notNull())
    .addColumn('expires_at', t.time)
    .addColumn('revoked_at', t.time)
    .addColumn('replaced_by', t.id)
    .addColumn('created_by_key_id', t.id)
    .execute();
  await db.schema.createIndex('api_keys_org_idx').on('api_keys').columns(['organization_id', 'livemode', 'id']).execute();

  await db.schema
    .createTable('idempotency_keys')
    .addColumn('organization_id', t.id, (c) => c.notNull())
    .addColumn('livemode', t.flag, (c) => c.notNull())
    .addColumn('key', 'text', (c) => c.notNull())
    .addColumn('request_hash', 'text', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('response_status', 'integer')
    .addColumn('response_body', 'text')
    .addColumn('response_content_type', 'text')
    .addColumn('created_at', t.time, (c) => c.notNull())
    .addColumn('locked_until', t.time, (c) => c.notNull())
    .addPrimaryKeyConstraint('idempotency_keys_pk', ['organization_id', 'livemode', 'key'])
    .execute();
  await db.schema.createIndex('idempotency_keys_created_idx').on('idempotency_keys').column('created_at').execute();

  await db.schema
    .createTable('credit_ledger')
    .addColumn('id', t.id, (c) => c.primaryKey())
    .addColumn('organization_id', t.id, (c) => c.notNull().references('organizations.id').onDelete('cascade'))
    .addColumn('livemode', t.flag, (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('amount', 'integer', (c) => c.notNull())
    .addColumn('entry_type', 'text', (c) => c.notNull())
    .addColumn('reservation_id', t.id)
    .addColumn('reference', 'text')
    .addColumn('created_at', t.time, (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('credit_ledger_balance_idx')
    .on('credit_ledger')
    .columns(['organization_id', 'livemode', 'kind'])
    .execute();
  await db.schema.createIndex('credit_ledger_reservation_idx').on('credit_ledger').column('reservation_id').execute();

  await db.schema
    .createTable('credit_locks')
    .addColumn('organization_id', t.id, (c) => c.notNull().references('organizations.id').onDelete('cascade'))
    .addColumn('livemode', t.flag, (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('version', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('credit_locks_pk', ['organization_id', 'livemode', 'kind'])
    .execute();

  await db.schema
    .createTable('sandbox_quota')
    .addColumn('organization_id', t.id, (c) => c.notNull().references('organizations.id').onDelete('cascade'))
    .addColumn('period', 'text', (c) => c.notNull())
    .addColumn('used', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('sandbox_quota_pk', ['organization_id', 'period'])
    .execute();

  await db.schema
    .createTable('branding')
    .addColumn('organization_id', t.id, (c) => c.notNull().references('organizations.id').onDelete('cascade'))
    .addColumn('livemode', t.flag, (c) => c.notNull())
    .addColumn('company_name', 'text')
    .addColumn('logo_url', 'text')
    .addColumn('primary_color', 'text')
    .addColumn('accent_color', 'text')
    .addColumn('background_color', 'text')
    .addColumn('text_color', 'text')
    .addColumn('updated_at', t.time, (c) => c.notNull())
    .addPrimaryKeyConstraint('branding_pk', ['organization_id', 'livemode'])
    .execute();

  await db.schema
    .createTable('candidates')
    .addColumn('id', t.id, (c) => c.primaryKey())
    .addColumn('organization_id', t.id, (c) => c.notNull().references('organizations.id').onDelete('cascade'))
    .addColumn('livemode', t.flag, (c) => c.notNull())
    .addColumn('email', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('created_at', t.time, (c) => c.notNull())
    .addColumn('updated_at', t.time, (c) => c.notNull())
    .addUniqueConstraint('candidates_org_email_uq', ['organization_id', 'livemode', 'email'])
    .execute();
  await db.schema
    .createIndex('candidates_page_idx')
    .on('candidates')
    .columns(['organization_id', 'livemode', 'id'])
    .execute();

  await db.schema
    .createTable('settings')
    .addColumn('key', 'text', (c) => c.primaryKey())
    .addColumn('value', 'text', (c) => c.notNull())
    .addColumn('created_at', t.time, (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const table of [
    'settings', 'candidates', 'branding', 'sandbox_quota', 'credit_locks', 'credit_ledger',
    'idempotency_keys', 'api_keys', 'members', 'organization_modules', 'organizations',
  ]) {
    await db.schema.dropTable(table).ifExists().execute();
  }
}
