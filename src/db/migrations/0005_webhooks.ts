import type { Kysely } from 'kysely';
import { columnTypes } from './types.js';

/** Webhook endpoints, the events the service emits, and each endpoint's delivery of each event with its attempts. */
export async function up(db: Kysely<any>): Promise<void> {
  const t = columnTypes(db);
  await db.schema.createTable('webhook_endpoints')
    .addColumn('id', t.id, (c) => c.primaryKey())
    .addColumn('organization_id', t.id, (c) => c.notNull().references('organizations.id').onDelete('cascade'))
    .addColumn('livemode', t.flag, (c) => c.notNull())
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('description', 'text')
    .addColumn('enabled_events', 'text', (c) => c.notNull())
    .addColumn('disabled', t.flag, (c) => c.notNull())
    .addColumn('secret', 'text', (c) => c.notNull()) // encrypted
    .addColumn('previous_secret', 'text') // encrypted; still signs until previous_secret_expires_at
    .addColumn('previous_secret_expires_at', t.time)
    .addColumn('created_at', t.time, (c) => c.notNull())
    .addColumn('updated_at', t.time, (c) => c.notNull())
    .addColumn('deleted_at', t.time)
    .execute();
  await db.schema.createIndex('webhook_endpoints_page_idx').on('webhook_endpoints').columns(['organization_id', 'livemode', 'id']).execute();

  await db.schema.createTable('events')
    .addColumn('id', 'text', (c) => c.primaryKey()) // whevt_…
    .addColumn('organization_id', t.id, (c) => c.notNull().references('organizations.id').onDelete('cascade'))
    .addColumn('livemode', t.flag, (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('payload', 'text', (c) => c.notNull()) // the exact body signed and sent
    .addColumn('status', 'text', (c) => c.notNull()) // pending | delivered | failed
    .addColumn('created_at', t.time, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('events_page_idx').on('events').columns(['organization_id', 'livemode', 'created_at']).execute();
  await db.schema.createIndex('events_retention_idx').on('events').column('created_at').execute();

  await db.schema.createTable('webhook_deliveries')
    .addColumn('id', t.id, (c) => c.primaryKey())
    .addColumn('event_id', 'text', (c) => c.notNull().references('events.id').onDelete('cascade'))
    .addColumn('endpoint_id', t.id, (c) => c.notNull().references('webhook_endpoints.id').onDelete('cascade'))
    .addColumn('status', 'text', (c) => c.notNull()) // pending | delivered | failed
    .addColumn('created_at', t.time, (c) => c.notNull())
    .addColumn('updated_at', t.time, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('webhook_deliveries_event_idx').on('webhook_deliveries').column('event_id').execute();

  await db.schema.createTable('webhook_attempts')
    .addColumn('id', t.id, (c) => c.primaryKey())
    .addColumn('delivery_id', t.id, (c) => c.notNull().references('webhook_deliveries.id').onDelete('cascade'))
    .addColumn('endpoint_id', t.id, (c) => c.notNull())
    .addColumn('event_id', 'text', (c) => c.notNull())
    .addColumn('status_code', 'integer')
    .addColumn('response_body', 'text')
    .addColumn('response_ms', 'integer')
    .addColumn('error', 'text')
    .addColumn('succeeded', t.flag, (c) => c.notNull())
    .addColumn('created_at', t.time, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('webhook_attempts_endpoint_idx').on('webhook_attempts').columns(['endpoint_id', 'id']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const table of ['webhook_attempts', 'webhook_deliveries', 'events', 'webhook_endpoints']) await db.schema.dropTable(table).ifExists().execute();
}
