import type { Kysely } from 'kysely';
import { columnTypes } from './types.js';

/**
 * Resumes and the stored files behind them. `stored_files` records every object the service hands out an upload
 * URL for or writes, so erasing a candidate can find and delete all of theirs (a deleted resume's file included).
 * A resume's scores are kept per brief fingerprint: re-scoring against an unchanged brief reads the stored one.
 */
export async function up(db: Kysely<any>): Promise<void> {
  const t = columnTypes(db);

  await db.schema.createTable('stored_files')
    .addColumn('key', 'text', (c) => c.primaryKey())
    .addColumn('organization_id', t.id, (c) => c.notNull().references('organizations.id').onDelete('cascade'))
    .addColumn('livemode', t.flag, (c) => c.notNull())
    .addColumn('candidate_id', t.id)
    .addColumn('purpose', 'text', (c) => c.notNull()) // resume_upload | resume
    .addColumn('file_name', 'text') // as the client named it; shown only for files uploaded through Prep's own pages
    .addColumn('first_party', t.flag, (c) => c.notNull())
    .addColumn('expires_at', t.time) // upload URLs: when the URL stops working
    .addColumn('created_at', t.time, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('stored_files_candidate_idx').on('stored_files').columns(['organization_id', 'livemode', 'candidate_id']).execute();

  await db.schema.createTable('resumes')
    .addColumn('id', t.id, (c) => c.primaryKey())
    .addColumn('organization_id', t.id, (c) => c.notNull().references('organizations.id').onDelete('cascade'))
    .addColumn('livemode', t.flag, (c) => c.notNull())
    .addColumn('candidate_id', t.id, (c) => c.notNull())
    .addColumn('upload_key', 'text', (c) => c.notNull())
    .addColumn('file_key', 'text', (c) => c.notNull()) // the registered copy, which no upload URL can overwrite
    .addColumn('content_type', 'text', (c) => c.notNull())
    .addColumn('size', 'integer', (c) => c.notNull())
    .addColumn('pages', 'integer', (c) => c.notNull())
    .addColumn('sha256', 'text', (c) => c.notNull())
    .addColumn('parsed', 'text', (c) => c.notNull()) // JSON: the parsed fields
    .addColumn('sections', 'text', (c) => c.notNull()) // JSON: visible text by section, the scorer's evidence
    .addColumn('score_id', t.id) // the latest score asked for
    .addColumn('created_at', t.time, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('resumes_tenant_idx').on('resumes').columns(['organization_id', 'livemode', 'id']).execute();
  await db.schema.createIndex('resumes_candidate_idx').on('resumes').columns(['organization_id', 'livemode', 'candidate_id', 'id']).execute();
  await db.schema.createIndex('resumes_upload_idx').on('resumes').columns(['upload_key']).unique().execute();

  await db.schema.createTable('resume_scores')
    .addColumn('id', t.id, (c) => c.primaryKey())
    .addColumn('resume_id', t.id, (c) => c.notNull().references('resumes.id').onDelete('cascade'))
    .addColumn('organization_id', t.id, (c) => c.notNull().references('organizations.id').onDelete('cascade'))
    .addColumn('livemode', t.flag, (c) => c.notNull())
    .addColumn('brief_fingerprint', 'text', (c) => c.notNull())
    .addColumn('score', 'text', (c) => c.notNull()) // JSON
    .addColumn('event_id', 'text')
    .addColumn('created_at', t.time, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('resume_scores_brief_idx').on('resume_scores').columns(['resume_id', 'brief_fingerprint']).unique().execute();
}
