import type { Kysely } from 'kysely';

/**
 * Webhook endpoints keep every rotated secret still inside its grace window (a JSON array of
 * `{secret, expires_at}`, secrets encrypted), instead of only the one before the current: rotating twice within
 * 24 hours must not cut off the first secret early.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('webhook_endpoints').addColumn('retired_secrets', 'text', (c) => c.notNull().defaultTo('[]')).execute();
  const rows = await db.selectFrom('webhook_endpoints').select(['id', 'previous_secret', 'previous_secret_expires_at'])
    .where('previous_secret', 'is not', null).execute();
  for (const row of rows) {
    const retired = JSON.stringify([{ secret: row.previous_secret, expires_at: Number(row.previous_secret_expires_at ?? 0) }]);
    await db.updateTable('webhook_endpoints').set({ retired_secrets: retired }).where('id', '=', row.id).execute();
  }
  await db.schema.alterTable('webhook_endpoints').dropColumn('previous_secret').execute();
  await db.schema.alterTable('webhook_endpoints').dropColumn('previous_secret_expires_at').execute();
}
