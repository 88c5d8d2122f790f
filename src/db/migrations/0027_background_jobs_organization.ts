import { sql, type Kysely } from 'kysely';
import { columnTypes } from './types.js';

/**
 * The organisation a job works for (none for the service's own work: sweeps, retention), so that claiming shares the
 * workers' slots between organisations: one organisation's burst (500 gradings at once) no longer holds every slot
 * while another's single job waits behind it. The index serves each step of the claim: the organisations with queued
 * jobs (one probe each), each one's earliest due job, and the claim of an organisation's due jobs in run_at order.
 * Jobs queued before this migration have none and are claimed as the service's own.
 */
export async function up(db: Kysely<any>): Promise<void> {
  const t = columnTypes(db);
  await db.schema.alterTable('background_jobs').addColumn('organization_id', t.id).execute();
  await db.schema.createIndex('background_jobs_queued_org_idx').on('background_jobs').columns(['organization_id', 'run_at'])
    .where(sql.ref('status'), '=', 'queued').execute();
}
