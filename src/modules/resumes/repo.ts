import { sql, type Kysely } from 'kysely';
import type { Db } from '../../db/database.js';
import type { Database, ResumeScoresTable, ResumesTable, StoredFilesTable } from '../../db/schema.js';
import { livemodeFlag, type Tenant } from '../../platform/context.js';
import { keysetPager, type PageRequest } from '../../platform/pagination.js';

export type ResumeRow = ResumesTable;
export type ListedResume = ResumesTable & { score: string | null };
/** A resume as a list shows it: without its sections (the whole visible text, which no reply carries). */
export type ResumeSummary = Omit<ListedResume, 'sections'>;
const SUMMARY_COLUMNS = [
  'resumes.id', 'resumes.organization_id', 'resumes.livemode', 'resumes.candidate_id', 'resumes.upload_key', 'resumes.file_key', 'resumes.content_type',
  'resumes.size', 'resumes.pages', 'resumes.sha256', 'resumes.parsed', 'resumes.score_id', 'resumes.created_at',
] as const;

export function createResumeRepo(database: Db) {
  const db = database.kysely;
  const inTenant = <T extends { where: (...args: any[]) => T }>(q: T, tenant: Tenant, table: string) =>
    q.where(`${table}.organization_id`, '=', tenant.organizationId).where(`${table}.livemode`, '=', livemodeFlag(tenant));

  // A resume with its latest score, read in one query.
  const withScore = (tx: Kysely<Database>) => tx.selectFrom('resumes')
    .leftJoin('resume_scores', 'resume_scores.id', 'resumes.score_id')
    .selectAll('resumes').select('resume_scores.score as score');

  const pageOf = keysetPager(database, (organizationId: string, livemode: 0 | 1, candidateId?: string) => {
    const q = db.selectFrom('resumes').leftJoin('resume_scores', 'resume_scores.id', 'resumes.score_id')
      .select(SUMMARY_COLUMNS).select('resume_scores.score as score').where('resumes.organization_id', '=', organizationId).where('resumes.livemode', '=', livemode);
    return candidateId === undefined ? q : q.where('resumes.candidate_id', '=', candidateId);
  }, 'resumes.id');

  return {
    list: (tenant: Tenant, page: PageRequest, candidateId?: string) => pageOf(page, tenant.organizationId, livemodeFlag(tenant), candidateId),
    async get(tx: Kysely<Database>, tenant: Tenant, id: string): Promise<ListedResume | undefined> {
      return inTenant(withScore(tx), tenant, 'resumes').where('resumes.id', '=', id).executeTakeFirst();
    },
    async insert(tx: Kysely<Database>, row: ResumeRow) {
      await tx.insertInto('resumes').values(row).execute();
    },
    async byUploadKey(tx: Kysely<Database>, key: string) {
      return tx.selectFrom('resumes').select(['id']).where('upload_key', '=', key).executeTakeFirst();
    },
    /** Holds the resume for the transaction (a deletion waits); false when it is gone. */
    async lock(tx: Kysely<Database>, tenant: Tenant, id: string): Promise<boolean> {
      const result = await inTenant(tx.updateTable('resumes').set({ score_id: sql`score_id` }), tenant, 'resumes').where('id', '=', id).executeTakeFirst();
      return Number(result.numUpdatedRows) > 0;
    },
    async delete(tx: Kysely<Database>, tenant: Tenant, id: string): Promise<boolean> {
      const result = await inTenant(tx.deleteFrom('resumes'), tenant, 'resumes').where('id', '=', id).executeTakeFirst();
      return Number(result.numDeletedRows) > 0;
    },
    async deleteForCandidate(tx: Kysely<Database>, tenant: Tenant, candidateId: string) {
      await inTenant(tx.deleteFrom('resumes'), tenant, 'resumes').where('candidate_id', '=', candidateId).execute();
    },

    async scoreFor(tx: Kysely<Database>, resumeId: string, fingerprint: string) {
      return tx.selectFrom('resume_scores').selectAll().where('resume_id', '=', resumeId).where('brief_fingerprint', '=', fingerprint).executeTakeFirst();
    },
    async insertScore(tx: Kysely<Database>, row: ResumeScoresTable) {
      await tx.insertInto('resume_scores').values(row).execute();
    },
    /** Replaces a stored score's JSON only if it is still `from` (a compare-and-set): false when another write came first. */
    async replaceScore(tx: Kysely<Database>, scoreId: string, from: string, to: string): Promise<boolean> {
      const r = await tx.updateTable('resume_scores').set({ score: to }).where('id', '=', scoreId).where('score', '=', from).executeTakeFirst();
      return Number(r.numUpdatedRows) === 1;
    },
    async setCurrentScore(tx: Kysely<Database>, resumeId: string, scoreId: string) {
      await tx.updateTable('resumes').set({ score_id: scoreId }).where('id', '=', resumeId).execute();
    },

    async insertFile(tx: Kysely<Database>, row: StoredFilesTable) {
      await tx.insertInto('stored_files').values(row).execute();
    },
    /** A registration's pending copy kept for good (its expiry cleared); false if it is no longer recorded. */
    async keepFile(tx: Kysely<Database>, key: string): Promise<boolean> {
      const r = await tx.updateTable('stored_files').set({ expires_at: null }).where('key', '=', key).where('purpose', '=', 'resume').executeTakeFirst();
      return Number(r.numUpdatedRows) === 1;
    },
    async file(tx: Kysely<Database>, tenant: Tenant, key: string) {
      return inTenant(tx.selectFrom('stored_files').selectAll(), tenant, 'stored_files').where('key', '=', key).executeTakeFirst();
    },
    /** Erasure: the names the candidate's files were uploaded under go at once, before the files themselves. */
    async forgetFileNames(tx: Kysely<Database>, tenant: Tenant, candidateId: string) {
      await inTenant(tx.updateTable('stored_files').set({ file_name: null }), tenant, 'stored_files').where('candidate_id', '=', candidateId).execute();
    },
    async candidateFiles(tx: Kysely<Database>, tenant: Tenant, candidateId: string) {
      return inTenant(tx.selectFrom('stored_files').select(['key', 'expires_at']), tenant, 'stored_files').where('candidate_id', '=', candidateId).execute();
    },
    /**
     * Upload objects whose URL expired before `before`, and registrations' copies left pending (their registration never
     * committed) that expired then (at most 500 a run).
     */
    async expiredUploads(tx: Kysely<Database>, before: number): Promise<string[]> {
      const rows = await tx.selectFrom('stored_files').select('key').where('purpose', 'in', ['resume_upload', 'resume']).where('expires_at', '<', before)
        .orderBy('expires_at').limit(500).execute();
      return rows.map((r) => r.key);
    },
    async deleteFiles(tx: Kysely<Database>, keys: string[]) {
      if (keys.length) await tx.deleteFrom('stored_files').where('key', 'in', keys).execute();
    },
  };
}

export type ResumeRepo = ReturnType<typeof createResumeRepo>;
