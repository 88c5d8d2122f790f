/**
 * Resumes: upload URLs, registration (read the uploaded bytes, parse them in the worker pool, keep a copy no upload
 * URL can overwrite), reading, deletion, download links, and scoring charged once per brief. Nothing slow or remote
 * (storage, parsing, the model) runs inside a transaction.
 */
import { createHash } from 'node:crypto';
import type { Kysely } from 'kysely';
import { isUniqueViolation } from '../../db/errors.js';
import type { Database } from '../../db/schema.js';
import { PERSISTENT_MAX_ATTEMPTS, type JobQueue } from '../../jobs/queue.js';
import { runSteps, type JobHandler } from '../../jobs/worker.js';
import type { TextModel } from '../../ai/model.js';
import type { Clock } from '../../platform/clock.js';
import { livemodeFlag, type Tenant } from '../../platform/context.js';
import type { Credits } from '../../platform/credits.js';
import { ApiError } from '../../platform/errors.js';
import { newId } from '../../platform/ids.js';
import type { PageRequest } from '../../platform/pagination.js';
import { DOCUMENT_EXTENSIONS, type DocumentContentType } from '../../storage/file-type.js';
import { ObjectTooLarge, type ObjectStorage } from '../../storage/storage.js';
import { narrate, type Narrative } from './narrative.js';
import { UnprocessableResume } from './parse/lines.js';
import type { ParsePool } from './parse/pool.js';
import type { ListedResume, ResumeRepo } from './repo.js';
import { briefFingerprint, normaliseBrief, scoreResume, type Brief, type ResumeScore } from './scoring/index.js';
import type { ParseResult } from './types.js';

export const MAX_RESUME_BYTES = 10 * 1024 * 1024;
export const UPLOAD_URL_TTL_SECONDS = 900;
export const FILE_URL_TTL_SECONDS = 300;
/** An upload not registered this long after its URL expired is deleted (object and record). */
export const UPLOAD_RETENTION_MS = 24 * 3_600_000;
/** A registration's copy of the file is pending until the resume commits; one still pending past this is abandoned. */
const PENDING_COPY_MS = 3_600_000;

import type { Emit } from '../webhooks/service.js';

export interface ResumeServiceDeps {
  db: Kysely<Database>;
  clock: Clock;
  repo: ResumeRepo;
  storage: ObjectStorage;
  parser: () => ParsePool;
  credits: Credits;
  queue: JobQueue;
  model: TextModel | null;
  emit: Emit;
  candidates: {
    exists(tx: Kysely<Database>, tenant: Tenant, id: string): Promise<boolean>;
    /** Holds the candidate for the transaction (erasure waits); false when it is gone. */
    lock(tx: Kysely<Database>, tenant: Tenant, id: string): Promise<boolean>;
  };
}

/** A stored score with the narrative the model added, when one did. */
export type StoredScore = ResumeScore & { scored_at: number; narrative: Narrative | null };

const yearMonth = (ms: number) => new Date(ms).toISOString().slice(0, 7);

/**
 * A job description is scored in its NFKC form, which can be far longer than what was sent (a ligature is two letters,
 * U+FDFA eighteen): bounded too, so the route's 20,000-character cap also bounds scoring, on the request thread.
 */
const JOB_DESCRIPTION_NORMALISED_MAX = 40_000;

export function createResumeService(deps: ResumeServiceDeps) {
  const { db, clock, repo, storage } = deps;

  const noCandidate = (id: string) => new ApiError('resource_not_found', { param: 'candidate_id', message: `No such candidate: '${id}'.` });

  async function requireCandidate(tx: Kysely<Database>, tenant: Tenant, id: string): Promise<void> {
    if (!(await deps.candidates.exists(tx, tenant, id))) throw noCandidate(id);
  }

  const noResume = (id: string) => new ApiError('resume_not_found', { param: 'id', message: `No such resume: '${id}'.` });

  async function get(tenant: Tenant, id: string): Promise<ListedResume> {
    const row = await repo.get(db, tenant, id);
    if (!row) throw noResume(id);
    return row;
  }

  async function readUpload(key: string): Promise<Buffer> {
    try {
      const bytes = await storage.read(key, MAX_RESUME_BYTES);
      if (!bytes) throw new ApiError('resume_not_found', { param: 'key', message: 'Nothing has been uploaded to this key yet; PUT the file to its upload_url first.' });
      return bytes;
    } catch (error) {
      if (error instanceof ObjectTooLarge) throw new ApiError('unprocessable_resume', { message: 'The file is larger than 10 MiB, more than a resume may be.' });
      throw error;
    }
  }

  async function parse(tenant: Tenant, bytes: Buffer): Promise<ParseResult> {
    try {
      return await deps.parser().parse(bytes, yearMonth(clock.now()), tenant.organizationId);
    } catch (error) {
      if (error instanceof UnprocessableResume) throw new ApiError('unprocessable_resume', { message: `The file could not be read as a resume: ${error.reason}.` });
      throw error;
    }
  }

  /**
   * A stored score whose narrative failed (the model was down or answered out of shape), its brief re-sent: the model
   * is asked again and a narrative it now gives is stored in the score, without a charge or a second `resume.scored`
   * (the score itself, charged and announced once, is unchanged). Written only over the failed score it replaces, so
   * of two concurrent re-requests one narrative is kept and both answer with it; a failure again leaves it as it was.
   */
  async function renarrate(stored: { id: string; score: string }, result: ParseResult, brief: Brief | null): Promise<void> {
    if (!deps.model) return;
    const score = JSON.parse(stored.score) as StoredScore;
    if (score.narrative?.status !== 'failed') return;
    const narrative = await narrate(deps.model, result, brief, score);
    if (narrative.status !== 'ok') return;
    const renarrated: StoredScore = { ...score, narrative, flags: score.flags.filter((f) => f !== 'model_unavailable') };
    await repo.replaceScore(db, stored.id, stored.score, JSON.stringify(renarrated));
  }

  return {
    get,
    list: (tenant: Tenant, page: PageRequest, candidateId?: string) => repo.list(tenant, page, candidateId),

    async createUploadUrl(tenant: Tenant, input: { candidate_id: string; filename: string }) {
      await requireCandidate(db, tenant, input.candidate_id);
      const key = `resumes/uploads/${newId()}`;
      const signed = await storage.signedPutUrl(key, { expiresIn: UPLOAD_URL_TTL_SECONDS, maxBytes: MAX_RESUME_BYTES });
      const now = clock.now();
      // Recorded while the candidate is held: an erasure meanwhile either finds this file to delete, or comes first (404).
      await db.transaction().execute(async (tx) => {
        if (!(await deps.candidates.lock(tx, tenant, input.candidate_id))) throw noCandidate(input.candidate_id);
        await repo.insertFile(tx, {
          key, organization_id: tenant.organizationId, livemode: livemodeFlag(tenant), candidate_id: input.candidate_id,
          purpose: 'resume_upload', file_name: input.filename, first_party: 0, expires_at: now + signed.expiresIn * 1000, created_at: now,
        });
      });
      return { object: 'resume_upload' as const, upload_url: signed.url, key, expires_in: signed.expiresIn };
    },

    async register(tenant: Tenant, input: { candidate_id: string; key: string }): Promise<ListedResume> {
      await requireCandidate(db, tenant, input.candidate_id);
      const upload = await repo.file(db, tenant, input.key);
      if (!upload || upload.purpose !== 'resume_upload') {
        throw new ApiError('resume_not_found', { param: 'key', message: 'No upload with this key in this organisation; get one from POST /v1/resumes/upload-url.' });
      }
      if (upload.candidate_id !== input.candidate_id) {
        throw new ApiError('parameter_invalid', { param: 'candidate_id', message: 'This upload key was issued for another candidate.' });
      }
      const registered = await repo.byUploadKey(db, input.key);
      if (registered) throw new ApiError('resume_already_registered', { param: 'key', message: `This upload is already registered as resume '${registered.id}'.` });
      const bytes = await readUpload(input.key);
      const result = await parse(tenant, bytes);
      const id = newId();
      const fileKey = `resumes/files/${id}`;
      const now = clock.now();
      // The copy is recorded before it is written, as pending (an expiry the resume's commit clears), while the candidate
      // is held: a process killed before that commit leaves a file an erasure finds, and the uploads' sweep deletes.
      await db.transaction().execute(async (tx) => {
        if (!(await deps.candidates.lock(tx, tenant, input.candidate_id))) throw noCandidate(input.candidate_id); // erased meanwhile
        await repo.insertFile(tx, {
          key: fileKey, organization_id: tenant.organizationId, livemode: livemodeFlag(tenant), candidate_id: input.candidate_id,
          purpose: 'resume', file_name: upload.file_name, first_party: upload.first_party, expires_at: now + PENDING_COPY_MS, created_at: now,
        });
      });
      try {
        // The bytes that were parsed are the ones kept: the upload URL may be used again while the file is read.
        await storage.write(fileKey, bytes, result.contentType);
        await db.transaction().execute(async (tx) => {
          if (!(await deps.candidates.lock(tx, tenant, input.candidate_id))) throw noCandidate(input.candidate_id); // erased meanwhile
          if (!(await repo.keepFile(tx, fileKey))) throw new Error('the copy of the resume was swept before it was registered');
          await repo.insert(tx, {
            id, organization_id: tenant.organizationId, livemode: livemodeFlag(tenant), candidate_id: input.candidate_id,
            upload_key: input.key, file_key: fileKey, content_type: result.contentType, size: bytes.length, pages: result.pages,
            sha256: createHash('sha256').update(bytes).digest('hex'), parsed: JSON.stringify(result.parsed),
            sections: JSON.stringify(result.sections), score_id: null, created_at: now,
          });
        });
      } catch (error) {
        // Its record goes only once the copy has: storage failing now leaves both to an erasure or the sweep.
        await storage.delete(fileKey).then(() => repo.deleteFiles(db, [fileKey])).catch(() => undefined);
        if (isUniqueViolation(error)) throw new ApiError('resume_already_registered', { param: 'key' });
        throw error;
      }
      return get(tenant, id);
    },

    async remove(tenant: Tenant, id: string): Promise<void> {
      if (!(await repo.delete(db, tenant, id))) throw noResume(id);
    },

    async fileLink(tenant: Tenant, id: string) {
      const resume = await get(tenant, id);
      const file = await repo.file(db, tenant, resume.file_key);
      const shownName = file?.first_party ? file.file_name : null;
      const signed = await storage.signedGetUrl(resume.file_key, {
        expiresIn: FILE_URL_TTL_SECONDS, contentType: resume.content_type,
        fileName: shownName ?? `resume-${resume.id}.${DOCUMENT_EXTENSIONS[resume.content_type as DocumentContentType] ?? 'bin'}`,
      });
      return { object: 'resume_file' as const, url: signed.url, ...(shownName ? { file_name: shownName } : {}), expires_in: signed.expiresIn };
    },

    /**
     * Scores against a brief (or standalone). An unchanged brief returns the stored score without a charge (its
     * narrative asked for again when the model failed to give it: renarrate()); a new one is computed (and narrated
     * by the model, when there is one) before the transaction that spends the credit, stores it and emits
     * `resume.scored`, so each charge has exactly one event.
     */
    async score(tenant: Tenant, id: string, input: { role?: string; job_description?: string }): Promise<ListedResume> {
      if (input.job_description !== undefined && input.job_description.normalize('NFKC').length > JOB_DESCRIPTION_NORMALISED_MAX) {
        throw new ApiError('parameter_invalid', { param: 'job_description', message: `The job description is over ${JOB_DESCRIPTION_NORMALISED_MAX.toLocaleString('en')} characters once its compatibility characters are spelled out (NFKC).` });
      }
      const resume = await get(tenant, id);
      const brief = normaliseBrief(input);
      const fingerprint = briefFingerprint(brief);
      const result: ParseResult = { contentType: resume.content_type as ParseResult['contentType'], pages: resume.pages, parsed: JSON.parse(resume.parsed), sections: JSON.parse(resume.sections) };
      const stored = await repo.scoreFor(db, resume.id, fingerprint);
      if (stored) {
        if (resume.score_id !== stored.id) await repo.setCurrentScore(db, resume.id, stored.id);
        await renarrate(stored, result, brief);
        return get(tenant, id);
      }
      // Both refusals the spending will meet, checked before the model's round trip is paid for.
      if ((await deps.credits.balance(db, tenant, 'resume')) < 1) throw new ApiError('insufficient_credits', { message: 'Not enough resume credits: 1 needed.' });
      if (!tenant.livemode && (await deps.credits.quota(db, tenant.organizationId)).remaining < 1) throw new ApiError('sandbox_quota_exceeded');
      const computed = scoreResume(result, brief, { asOf: yearMonth(clock.now()) });
      const narrative = deps.model ? await narrate(deps.model, result, brief, computed) : null;
      const score: StoredScore = {
        ...computed, scored_at: Math.floor(clock.now() / 1000), narrative,
        flags: narrative?.status === 'failed' ? [...computed.flags, 'model_unavailable'] : computed.flags,
      };
      await db.transaction().execute(async (tx) => {
        // The balance first, then the resume, the order every transaction that spends takes its locks in.
        await deps.credits.lock(tx, tenant, 'resume');
        if (!(await repo.lock(tx, tenant, resume.id))) throw noResume(id); // deleted (or its candidate erased) meanwhile
        const raced = await repo.scoreFor(tx, resume.id, fingerprint);
        if (raced) {
          await repo.setCurrentScore(tx, resume.id, raced.id);
          return;
        }
        const scoreId = newId();
        const reservation = await deps.credits.reserve(tx, tenant, 'resume', scoreId);
        await deps.credits.commit(tx, reservation);
        const eventId = await deps.emit(tx, tenant, 'resume.scored', {
          object: 'resume', id: resume.id, candidate_id: resume.candidate_id, overall: score.overall, brief_fingerprint: fingerprint,
          mode: score.mode, scorer_version: score.scorer_version,
        });
        await repo.insertScore(tx, {
          id: scoreId, resume_id: resume.id, organization_id: tenant.organizationId, livemode: livemodeFlag(tenant),
          brief_fingerprint: fingerprint, score: JSON.stringify(score), event_id: eventId, created_at: clock.now(),
        });
        await repo.setCurrentScore(tx, resume.id, scoreId);
      });
      return get(tenant, id);
    },

    /**
     * Candidate erasure: the resumes go now; their files (uploads and registered copies) are deleted by a job, and
     * once more when the last upload URL has expired, in case it was used after the first deletion.
     */
    async eraseCandidate(tx: Kysely<Database>, tenant: Tenant, candidateId: string): Promise<void> {
      await repo.deleteForCandidate(tx, tenant, candidateId);
      await repo.forgetFileNames(tx, tenant, candidateId);
      const files = await repo.candidateFiles(tx, tenant, candidateId);
      if (files.length === 0) return;
      // Storage out for a day must not leave an erased person's files behind.
      await deps.queue.enqueue(tx, 'storage.delete', { keys: files.map((f) => f.key) }, { maxAttempts: PERSISTENT_MAX_ATTEMPTS, organizationId: tenant.organizationId });
      const open = files.filter((f) => f.expires_at !== null && f.expires_at > clock.now());
      if (open.length) {
        const runAt = Math.max(...open.map((f) => f.expires_at as number)) + 60_000;
        await deps.queue.enqueue(tx, 'storage.delete', { keys: open.map((f) => f.key) }, { runAt, maxAttempts: PERSISTENT_MAX_ATTEMPTS, organizationId: tenant.organizationId });
      }
    },

    jobs(): JobHandler[] {
      // Each file by its key: a give-up (a week of tries, or a worker that died on every one) is logged with the files kept.
      const deleteObjects = async (keys: string[]) => {
        await runSteps(keys.map((key) => [key, () => storage.delete(key)]));
        await repo.deleteFiles(db, keys);
      };
      return [
        {
          kind: 'storage.delete',
          run: async (payload) => deleteObjects((payload as { keys: string[] }).keys),
          leftIfAbandoned: (payload) => (payload as { keys: string[] }).keys,
        },
        {
          // Uploads never registered (or already copied by registration), and copies a registration killed midway left
          // pending, go a day after they expired: in batches until none is left, so the hourly run keeps up with any rate.
          kind: 'resumes.sweep_uploads',
          everyMs: 3_600_000,
          run: async () => {
            const before = clock.now() - UPLOAD_RETENTION_MS;
            for (let keys = await repo.expiredUploads(db, before); keys.length > 0; keys = await repo.expiredUploads(db, before)) await deleteObjects(keys);
          },
        },
      ];
    },
  };
}

export type ResumeService = ReturnType<typeof createResumeService>;
