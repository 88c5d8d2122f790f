import type { Kysely } from 'kysely';
import type { TextModel } from '../../ai/model.js';
import type { Database, InterviewTurnsTable } from '../../db/schema.js';
import { PERSISTENT_MAX_ATTEMPTS, type JobQueue } from '../../jobs/queue.js';
import { namesOf, runSteps, type JobHandler, type NamedStep } from '../../jobs/worker.js';
import type { Clock } from '../../platform/clock.js';
import { isPng, RECORDING_FORMATS, sniffRecording, type RecordingFormat } from '../../storage/file-type.js';
import { ObjectTooLarge, type ObjectStorage } from '../../storage/storage.js';
import { joinMp4Streams } from '../../storage/mp4-join.js';
import { joinWebmStreams } from '../../storage/webm-join.js';
import type { Emit } from '../webhooks/service.js';
import type { Sandbox } from '../../sandbox/sandbox.js';
import { judgeFinalCode } from './code-tests.js';
import { turnOf } from './conversation.js';
import { ERASE_FILES_JOB, PROCESS_JOB, TIMEOUT_JOB, type Ending } from './ending.js';
import { methodFor } from './interviewer/method.js';
import type { CodeRun } from './interviewer/types.js';
import { buildInterviewReport } from './interviewer/report.js';
import { assessWithModel } from './model-assessment.js';
import { tenantOfRow, type InterviewRepo, type InterviewRow } from './repo.js';
import { BOARD_MAX_BYTES, interviewFolder, RECORDING_CHUNK_MAX_BYTES, RECORDING_CHUNKS_MAX, RECORDING_MAX_BYTES, recordingChunkKey, recordingKey, recordingPiecesPrefix, UPLOAD_URL_TTL_S, type TranscriptTurn } from './service.js';
import { loadSetup } from './setup.js';
import { PAUSE_LIMIT_MS } from './states.js';

const SWEEP_BATCH = 200;
/** Joins a recording after its interview completed without it (storage failed on the last processing run). */
export const RECORDING_JOB = 'interview.recording';
/**
 * What was put through upload links after processing read it, checked when every link has expired (links live 5
 * minutes and are handed out while the interview is live): a recording's pieces are deleted once more, a whiteboard
 * image the transcript lists as not uploaded is deleted, and one it shows is checked again (S3 cannot bound a
 * presigned PUT: it could be replaced by any bytes). Without it, each stayed for good.
 */
export const LATE_UPLOADS_JOB = 'interview.late-uploads';
interface LateUploads { organization_id: string; id: string; pieces: boolean; images: Array<{ key: string; shown: boolean }> }
type ErasedInterview = { organization_id: string; id: string };
/** ERASE_FILES_JOB's payload: files by key, and interviews whose recording (older jobs) or whole folder goes. */
interface ErasedFiles { keys: string[]; recordings: ErasedInterview[]; folders?: ErasedInterview[] }

/** A recording's pieces as one stream: a later recorder's stream (a reload of the room) appended to the first's. */
function joinStreams(format: RecordingFormat, pieces: AsyncIterable<Buffer>): AsyncIterable<Buffer> {
  if (format.extension === 'webm') return joinWebmStreams(pieces);
  if (format.extension === 'm4a') return joinMp4Streams(pieces);
  return pieces; // Ogg: a chained stream is valid as it is
}

/**
 * How a run of processing treats what it cannot read. `strict`: an unreadable recording piece or image fails the run,
 * which the queue retries. `lenient` (the last run the queue allows): the recording or image is left out, so the
 * interview still completes. `minimal` (queued after every run's worker died): the recording is not joined (a
 * recording an earlier run joined is kept), as joining it is the likeliest thing to kill a worker; its pieces stay in
 * storage.
 */
type Mode = 'strict' | 'lenient' | 'minimal';

interface ProcessPayload {
  interview_id: string;
  /** Queued by the abandoned hook: the run without the recording. */
  minimal?: boolean;
}

/** Another run of the processing job joined this recording while this one was reading its pieces. */
class JoinedElsewhere extends Error {}

const runOf = (run: CodeRun | null) => (run ? { status: run.status, exit_code: run.exitCode, stdout: run.stdout, stderr: run.stderr, time_ms: run.timeMs } : null);

/** A stored turn as the transcript serves it; a whiteboard image counts only if a real PNG within the cap was uploaded. */
function transcriptTurn(row: InterviewTurnsTable, uploaded: ReadonlySet<string>): TranscriptTurn {
  const turn = turnOf(row);
  const data = row.data ? JSON.parse(row.data) as { key?: string } : null;
  return {
    seq: row.seq, speaker: row.speaker, kind: row.kind, text: row.text, question_position: row.question_position,
    at_seconds: Math.floor(row.at_ms / 1000), created_at: Math.floor(row.created_at / 1000),
    ...(turn.code ? { code: { language: turn.code.language, source: turn.code.source, run: runOf(turn.code.run) } } : {}),
    ...(row.kind === 'board' && data?.key ? { image: { key: data.key, uploaded: uploaded.has(data.key) } } : {}),
  };
}

/**
 * The interview's background work: the deadline (a job per running stretch, and a sweep as a safety net that also
 * ends abandoned pauses and expires unjoined interviews), and the processing after it ends: the transcript as
 * served, the report (the built-in assessment, and a model's beside it when configured), the final status
 * (`completed`, or `failed` when the transcript guard finds nothing scorable) and the events
 * `interview.transcript_available` and `interview.summary_available`, in that order and once (`interview.ended` and
 * `interview.completed` went out as the room closed: ending.ts).
 */
export function interviewJobs(deps: {
  db: Kysely<Database>; clock: Clock; queue: JobQueue; repo: InterviewRepo; ending: Ending; storage: ObjectStorage; model: TextModel | null; emit: Emit;
  changed: (interviewId: string) => void;
  /** Judges each problem's final code; `judgeBudgetMs` bounds one problem's cases, as for a coding submission. */
  sandbox: Sandbox; judgeBudgetMs: number;
}): JobHandler[] {
  const { db, clock, queue, repo, ending, storage, emit } = deps;

  /** `interview.summary_available`: how processing ended (the report's outcome, or why there is none). */
  async function emitSummary(tx: Kysely<Database>, row: InterviewRow, outcome: {
    status: 'completed' | 'failed'; overall_score: number | null; recommendation: string | null; failure_reason: string | null;
  }): Promise<void> {
    await emit(tx, tenantOfRow(row), 'interview.summary_available', { object: 'interview_report', interview_id: row.id, ...outcome });
  }

  async function settleById(id: string): Promise<void> {
    const row = await repo.byId(db, id);
    if (!row) return;
    const after = await ending.settle(db, row);
    if (after.status !== row.status) deps.changed(id);
  }

  async function uploadedImages(rows: InterviewTurnsTable[], mode: Mode): Promise<Set<string>> {
    const ok = new Set<string>();
    for (const row of rows.filter((r) => r.kind === 'board' && r.data)) {
      const key = (JSON.parse(row.data!) as { key: string }).key;
      const info = await storage.head(key).catch((error: unknown) => (mode === 'strict' ? Promise.reject(error) : null));
      if (!info) continue;
      // S3 cannot bound a presigned upload: what is over the cap, or no PNG, is never served, so it is not kept either.
      const bytes = info.size > BOARD_MAX_BYTES ? null : await storage.read(key, BOARD_MAX_BYTES).catch(() => undefined);
      if (bytes && isPng(bytes)) ok.add(key);
      else if (bytes !== undefined) await storage.delete(key).catch(() => undefined);
    }
    return ok;
  }

  /**
   * The recording's key, if there is one; `deferred` when the lenient run could not read it (storage failing): the
   * interview completes without it, and RECORDING_JOB joins it once storage answers again.
   */
  async function recordingOf(row: InterviewRow, mode: Mode): Promise<{ key: string | null; deferred: boolean }> {
    // An erased candidate's recording is never made (its pieces are being deleted).
    if (row.candidate_id === null) return { key: null, deferred: false };
    if (row.recording_key) return { key: row.recording_key, deferred: false };
    // The minimal run never joins, but keeps a recording an earlier run joined (its pieces are gone by then).
    if (mode === 'minimal') return { key: await joinedRecording(row).catch(() => null), deferred: false };
    try {
      return { key: await assembleRecording(row), deferred: false };
    } catch (error) {
      if (mode === 'strict') throw error;
      return { key: null, deferred: true };
    }
  }

  /** Queues the check of what is put through upload links after this run read them (LATE_UPLOADS_JOB). */
  async function checkLateUploads(tx: Kysely<Database>, row: InterviewRow, what: Omit<LateUploads, 'organization_id' | 'id'>, run: string): Promise<void> {
    if (!what.pieces && what.images.length === 0) return;
    const payload: LateUploads = { organization_id: row.organization_id, id: row.id, ...what };
    await queue.enqueue(tx, LATE_UPLOADS_JOB, payload,
      { runAt: clock.now() + UPLOAD_URL_TTL_S * 1000 + 60_000, uniqueKey: `${LATE_UPLOADS_JOB}:${row.id}:${run}`, maxAttempts: PERSISTENT_MAX_ATTEMPTS, organizationId: row.organization_id });
  }

  /** A whiteboard image that may be served: at most BOARD_MAX_BYTES and a PNG (or none at all). */
  async function servableImage(key: string): Promise<boolean> {
    const info = await storage.head(key);
    if (!info) return true;
    if (info.size > BOARD_MAX_BYTES) return false;
    const bytes = await storage.read(key, BOARD_MAX_BYTES).catch((error: unknown) => (error instanceof ObjectTooLarge ? null : Promise.reject(error)));
    return bytes === null || isPng(bytes);
  }

  /** The recording joined after the interview completed without it; stored unless the candidate was erased meanwhile. */
  async function joinLater(interviewId: string): Promise<void> {
    const row = await repo.byId(db, interviewId);
    if (!row || row.candidate_id === null || row.recording_key || (row.status !== 'completed' && row.status !== 'failed')) return;
    const key = await assembleRecording(row); // throws while storage fails: the job is tried again
    if (!key) return;
    const stored = await db.transaction().execute(async (tx) => {
      const current = await repo.locked(tx, interviewId);
      if (!current || current.candidate_id !== row.candidate_id || current.recording_key) return false;
      await repo.transition(tx, interviewId, [current.status], { recording_key: key, updated_at: clock.now() });
      await checkLateUploads(tx, current, { pieces: true, images: [] }, 'joined');
      return true;
    });
    if (!stored) {
      const current = await repo.byId(db, interviewId);
      if (current?.recording_key !== key) await storage.delete(key); // erased meanwhile: nothing of the person is kept
    }
  }

  /** The recording an earlier run of the job joined and stored, if any. */
  async function joinedRecording(row: InterviewRow): Promise<string | null> {
    for (const format of RECORDING_FORMATS) if (await storage.head(recordingKey(row, format))) return recordingKey(row, format);
    return null;
  }

  /**
   * Live interviews: the pieces the room uploaded, joined in order into one recording (stops at the first missing
   * piece; nothing when the first is not a WebM, Ogg or MP4 start), stored and later served as that container.
   * The pieces are read one at a time and written on as they come (never the whole recording in memory), and
   * deleted once joined. A WebM or MP4 recording that a reload of the room started over (a second stream in later
   * pieces) is joined into one stream on one timeline (storage/webm-join.ts, storage/mp4-join.ts).
   */
  async function assembleRecording(row: InterviewRow): Promise<string | null> {
    if (row.livemode !== 1) return null;
    const joined = await joinedRecording(row); // by an earlier try
    if (joined) return joined;
    // A piece over the cap (the signed upload refuses one) ends the recording as a gap does. Any other failure to read
    // fails the job, which runs again later, rather than store a recording cut short and delete the rest of it.
    const piece = (i: number) => storage.read(recordingChunkKey(row, i), RECORDING_CHUNK_MAX_BYTES)
      .catch((error: unknown) => (error instanceof ObjectTooLarge ? null : Promise.reject(error)));
    const first = await piece(0);
    const format = first ? sniffRecording(first) : null;
    if (!first || !format) {
      await storage.deletePrefix(recordingPiecesPrefix(row)); // nothing will ever join them (past a gap, or no recording)
      return null;
    }
    const key = recordingKey(row, format);
    async function* pieces(): AsyncGenerator<Buffer> {
      let total = first!.length;
      yield first!;
      for (let i = 1; i < RECORDING_CHUNKS_MAX; i++) {
        const next = await piece(i);
        // A missing piece is a gap in what the room uploaded, or the work of another run of this job (one whose lease
        // ran out while it was slow) that has joined the recording and deleted the pieces: that run stored the whole
        // recording before deleting any piece, and this shorter one must not replace it.
        if (!next && await storage.head(key)) throw new JoinedElsewhere();
        if (!next || total + next.length > RECORDING_MAX_BYTES) return;
        total += next.length;
        yield next;
      }
    }
    try {
      await storage.writeParts(key, joinStreams(format, pieces()), format.contentType);
    } catch (error) {
      if (error instanceof JoinedElsewhere) return key; // nothing of this run was stored
      throw error;
    }
    await storage.deletePrefix(recordingPiecesPrefix(row)); // every piece, those past a gap or the cap too
    return key;
  }

  async function process(interviewId: string, mode: Mode): Promise<void> {
    const row = await repo.byId(db, interviewId);
    if (!row || row.status !== 'ended') return;
    const tenant = tenantOfRow(row);
    // Everything slow (storage, the model) happens before the one transaction that stores the result.
    const [setup, rows, integrity] = await Promise.all([loadSetup(db, repo, row), repo.turns(db, interviewId), repo.events(db, interviewId)]);
    const uploaded = await uploadedImages(rows, mode);
    const recording = await recordingOf(row, mode);
    const recordingKey = recording.key;
    const transcript = rows.map((r) => transcriptTurn(r, uploaded));
    const turns = rows.map(turnOf);
    const tests = await judgeFinalCode({ sandbox: deps.sandbox, budgetMs: deps.judgeBudgetMs, problem: (p) => repo.problemCases(db, p, row.organization_id) }, setup.plan, turns, mode === 'strict');
    const method = methodFor(row.round_slug);
    const body = buildInterviewReport({ method, setup, turns, tests, integrity: integrity.map((e) => ({ type: e.type, count: Number(e.count) })) });
    const modelAssessment = body.scored ? await assessWithModel(deps.model, method, turns) : null;
    const now = clock.now();
    const status = body.scored ? 'completed' as const : 'failed' as const;
    const report = { ...body, model_assessment: modelAssessment };
    const erasedMeanwhile = await db.transaction().execute(async (tx) => {
      const current = await repo.locked(tx, interviewId);
      if (!current || current.status !== 'ended') return false;
      // The candidate was erased while this ran: what was read of them must not be stored (see below).
      if (current.candidate_id !== row.candidate_id) return true;
      const stored = await repo.insertReport(tx, {
        interview_id: interviewId, organization_id: row.organization_id, livemode: row.livemode, transcript: JSON.stringify(transcript),
        report: JSON.stringify(report), created_at: now,
      });
      if (!stored) return false;
      const failure = body.scored ? null : body.quality.reason;
      await repo.transition(tx, interviewId, ['ended'], {
        status, completed_at: now, overall_score: body.overall_score, failure_reason: failure, recording_key: recordingKey, updated_at: now,
      });
      if (recording.deferred) await queue.enqueue(tx, RECORDING_JOB, { interview_id: interviewId }, { uniqueKey: `${RECORDING_JOB}:${interviewId}`, maxAttempts: PERSISTENT_MAX_ATTEMPTS, organizationId: row.organization_id });
      const images = rows.filter((r) => r.kind === 'board' && r.data).map((r) => (JSON.parse(r.data!) as { key: string }).key);
      await checkLateUploads(tx, row, {
        pieces: row.livemode === 1 && !recording.deferred && mode !== 'minimal', images: images.map((key) => ({ key, shown: uploaded.has(key) })),
      }, 'processed');
      await emit(tx, tenant, 'interview.transcript_available', { object: 'interview_transcript', interview_id: interviewId, turns: transcript.length });
      await emitSummary(tx, row, { status, overall_score: body.overall_score, recommendation: body.recommendation, failure_reason: failure });
      return false;
    });
    if (erasedMeanwhile) {
      // A recording this run joined may have been written after the erasure's job deleted the files: it goes too.
      // Then the interview is processed again from what is left of it (nothing of the person).
      if (recordingKey && recordingKey !== row.recording_key) await storage.delete(recordingKey);
      return process(interviewId, mode);
    }
    deps.changed(interviewId);
  }

  /**
   * Processing failed on every run, the one without the recording included: the interview fails with
   * `processing_error` and no transcript or report, rather than stay `ended` for ever. `interview.summary_available`
   * says so (there is no transcript to announce).
   */
  async function giveUp(interviewId: string): Promise<void> {
    const changed = await db.transaction().execute(async (tx) => {
      const row = await repo.locked(tx, interviewId);
      if (!row || row.status !== 'ended') return false;
      const now = clock.now();
      await repo.transition(tx, interviewId, ['ended'], { status: 'failed', completed_at: now, overall_score: null, failure_reason: 'processing_error', updated_at: now });
      await emitSummary(tx, row, { status: 'failed', overall_score: null, recommendation: null, failure_reason: 'processing_error' });
      return true;
    });
    if (changed) deps.changed(interviewId);
  }

  /**
   * LATE_UPLOADS_JOB's work, each step named (the pieces by their prefix and a *, an image by its key) so that a give-up
   * (a week of tries, or a worker that died on every one) logs what it left.
   */
  function lateUploadSteps(late: LateUploads): NamedStep[] {
    const steps: NamedStep[] = late.pieces ? [[`${recordingPiecesPrefix(late)}*`, () => storage.deletePrefix(recordingPiecesPrefix(late))]] : [];
    for (const { key, shown } of late.images) {
      steps.push([key, async () => { if (!shown || !(await servableImage(key))) await storage.delete(key); }]);
    }
    return steps;
  }

  /** ERASE_FILES_JOB's deletions, each named (a folder by its prefix and a *), so that a give-up logs what it kept. */
  function erasureSteps({ keys, recordings, folders = [] }: ErasedFiles): NamedStep[] {
    const steps: NamedStep[] = keys.map((key) => [key, () => storage.delete(key)]);
    // Queued before erasures named folders: the recording and its pieces by name.
    for (const r of recordings) {
      for (const format of RECORDING_FORMATS) steps.push([recordingKey(r, format), () => storage.delete(recordingKey(r, format))]);
      steps.push([`${recordingPiecesPrefix(r)}*`, () => storage.deletePrefix(recordingPiecesPrefix(r))]); // every piece, whatever its number
    }
    // Every file under the interview's folder, those a killed process left half-written under other names too.
    for (const r of folders) steps.push([`${interviewFolder(r)}*`, () => storage.deletePrefix(interviewFolder(r))]);
    return steps;
  }

  return [
    {
      // Queued for each running stretch's deadline (a pause and a rejoin queue a new one; the old finds nothing due).
      kind: TIMEOUT_JOB,
      run: async (payload) => settleById((payload as { interview_id: string }).interview_id),
    },
    {
      kind: 'interview.sweep',
      everyMs: 10_000,
      run: async () => {
        const now = clock.now();
        const due = [...await repo.due(db, now, SWEEP_BATCH), ...await repo.abandoned(db, now - PAUSE_LIMIT_MS, SWEEP_BATCH)];
        for (const row of due) await settleById(row.id);
        for (const { id } of await repo.unjoined(db, now, SWEEP_BATCH)) await settleById(id);
      },
    },
    {
      kind: PROCESS_JOB,
      retryDelaysSeconds: [5, 30, 120, 600],
      run: async (payload, job) => {
        const { interview_id: id, minimal } = payload as ProcessPayload;
        const last = minimal === true || job.attempts >= job.max_attempts;
        try {
          await process(id, minimal ? 'minimal' : last ? 'lenient' : 'strict');
        } catch (error) {
          if (last) await giveUp(id);
          throw error; // recorded on the job, for whoever looks into it
        }
      },
      // Every run's worker died (a recording that exhausts memory, say): once more without the recording, then give up.
      abandoned: async (payload, job) => {
        const { interview_id: id, minimal } = payload as ProcessPayload;
        if (minimal) return giveUp(id);
        await queue.enqueue(db, PROCESS_JOB, { interview_id: id, minimal: true } satisfies ProcessPayload, {
          uniqueKey: `${PROCESS_JOB}:${id}:minimal`, maxAttempts: 1, organizationId: job.organization_id,
        });
      },
    },
    {
      // A recording storage could not give the last processing run: joined when it answers again (for about a week;
      // the pieces stay until then). A worker that dies joining it gives up: the pieces stay in storage.
      kind: RECORDING_JOB,
      run: async (payload) => joinLater((payload as { interview_id: string }).interview_id),
    },
    {
      kind: LATE_UPLOADS_JOB,
      run: async (payload) => runSteps(lateUploadSteps(payload as LateUploads)),
      leftIfAbandoned: (payload) => namesOf(lateUploadSteps(payload as LateUploads)),
    },
    {
      kind: ERASE_FILES_JOB,
      run: async (payload) => runSteps(erasureSteps(payload as ErasedFiles)),
      leftIfAbandoned: (payload) => namesOf(erasureSteps(payload as ErasedFiles)),
    },
  ];
}
