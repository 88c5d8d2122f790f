import { Type } from 'typebox';
import type { App } from '../../app-types.js';
import { toUnixSeconds } from '../../platform/clock.js';
import { sessionTokenOf, tenantOf } from '../../platform/context.js';
import { ApiError } from '../../platform/errors.js';
import { listEnvelope, pageRequest } from '../../platform/pagination.js';
import { operation } from '../../platform/route.js';
import { IdParams, ListOf, ListQueryWith, Nullable, PAGE_LIMIT_DEFAULT, PAGE_LIMIT_MAX, StringEnum, Text, UnixSeconds, Uuid } from '../../platform/schemas.js';
import { LaunchLinkBody, launchLinkSchema, ProctoringEventType } from '../assessments/routes.js';
import { CodingLanguage } from '../coding/judging-routes.js';
import type { Languages } from '../coding/routes.js';
import { invitationOf, type Invitation } from './invitations.js';
import { QUALITY_REASONS } from './interviewer/quality.js';
import type { PlannedQuestion } from './interviewer/types.js';
import { CUSTOMER_QUESTIONS_MAX, type CustomerQuestion } from './plan.js';
import { PAUSE_SIGNAL, type InterviewRow } from './repo.js';
import { BOARD_MAX_BYTES, BOARD_MAX_IMAGES, SLOT_HORIZON_DAYS, SLOT_MINUTES, type InterviewService } from './service.js';
import { elapsedMs, INTERVIEW_STATUSES, STATUS_CODES } from './states.js';

const TAG = 'Interviews';
const Status = StringEnum(INTERVIEW_STATUSES, { description: 'See status_code for the raw number (docs/interviews.md)' });
const StatusCode = Type.Integer({ description: 'The raw numeric status the webhook shape carries: 10 scheduled, 20 in_progress, 25 paused, 30 ended, 40 completed, 50 failed, 60 cancelled, 70 expired' });

const InvitationSchema = Type.Object({
  status: StringEnum(['queued', 'sent', 'failed', 'not_sent'] as const),
  reason: Nullable(StringEnum(['test_mode', 'smtp_not_configured', 'interview_closed'] as const, { description: 'Why it was not sent' })),
  to: Type.String(), subject: Type.String(), text: Type.String({ description: 'The message; {launch_link} stands for the link minted when it is sent' }),
  sent_at: Nullable(UnixSeconds), error: Nullable(Type.String()),
});

const Interview = Type.Object({
  object: Type.Literal('interview'), id: Uuid, livemode: Type.Boolean(), candidate_id: Nullable(Uuid), status: Status, status_code: StatusCode,
  round_type: Type.String(), round_name: Type.String(), difficulty: Type.Integer(), role: Type.String(), resume_id: Nullable(Uuid),
  company_id: Nullable(Uuid), language: Type.String(), duration_minutes: Type.Integer({ description: 'Test mode: at most 5' }),
  scheduled_at: Nullable(UnixSeconds), join_by: UnixSeconds, joined_at: Nullable(UnixSeconds),
  elapsed_seconds: Type.Integer(), ended_at: Nullable(UnixSeconds),
  end_reason: Nullable(StringEnum(['candidate', 'interviewer', 'time_up', 'abandoned'] as const)), completed_at: Nullable(UnixSeconds),
  failure_reason: Nullable(Type.String({ description: 'failed: why nothing was scorable (empty, too_short, repetitive, garbled, unsupported_language), or processing_error when processing failed on every run' })),
  overall_score: Nullable(Type.Integer({ minimum: 0, maximum: 100 })), invitation: Nullable(InvitationSchema),
  created_at: UnixSeconds, updated_at: UnixSeconds,
});

const ASKS = ['story', 'view'] as const;
/** Text that is not only white space: at least `min` characters from its first visible one to its last. */
const Visible = (min: number, max: number, description?: string) =>
  Text({ min, max, pattern: min > 1 ? `\\S[\\s\\S]{${min - 2},}\\S` : '\\S', ...(description ? { description } : {}) });
const CustomerQuestionSchema = Type.Object({
  prompt: Visible(10, 2000, 'What the interviewer asks'),
  title: Type.Optional(Visible(1, 120)),
  key_points: Type.Optional(Type.Array(Visible(3, 400), { maxItems: 8, description: 'What a strong answer covers (the interviewer probes for the missing ones; never read out)' })),
  follow_ups: Type.Optional(Type.Array(Visible(3, 400), { maxItems: 5 })),
  asks: Type.Optional(StringEnum(ASKS, { description: 'story (default): a past example, followed up and rated by STAR; view: a view or a preference, followed up by its key points and follow-ups and left out of the STAR ratings' })),
}, { additionalProperties: false });

const Question = Type.Object({
  object: Type.Literal('interview_question'), position: Type.Integer(), source: StringEnum(['bank', 'customer'] as const),
  question_id: Nullable(Uuid), title: Type.String(), prompt: Type.String(), minutes: Type.Integer(),
  key_points: Type.Array(Type.String()), follow_ups: Type.Array(Type.String()), asks: StringEnum(ASKS),
  problem: Nullable(Type.Object({ slug: Type.String(), title: Type.String() })),
});
const Plan = Type.Object({
  object: Type.Literal('interview_plan'), interview_id: Uuid, editable: Type.Boolean({ description: 'Questions can be added until the candidate joins' }),
  data: Type.Array(Question),
});

const Room = Type.Object({
  object: Type.Literal('interview_room'), interview_id: Uuid, status: Status, status_code: StatusCode,
  channel: Type.Object({ url: Type.String({ description: 'WebSocket URL; authenticate with the session token in the first message' }), protocol: Type.String() }),
  clock: Type.Object({ duration_seconds: Type.Integer(), remaining_seconds: Type.Integer(), running: Type.Boolean() }),
  code: Type.Object({
    languages: Type.Array(Type.String()),
    options: Type.Array(CodingLanguage, { description: 'The same languages with names and starter templates, for the editor' }),
  }),
  whiteboard: Type.Object({ content_type: Type.Literal('image/png'), max_bytes: Type.Integer(), max_images: Type.Integer() }),
  recording: Type.Object({ enabled: Type.Boolean({ description: 'Live mode only; never in test mode' }) }),
  round: Type.Object({ name: Type.String(), role: Type.String() }),
  language: Type.String({ description: 'The interview\'s language (BCP 47): what the room speaks and listens in' }),
});

const Timer = Type.Object({
  object: Type.Literal('interview_timer'), status: Status, status_code: StatusCode, running: Type.Boolean(),
  duration_seconds: Type.Integer(), elapsed_seconds: Type.Integer(), remaining_seconds: Type.Integer(), server_time: UnixSeconds,
});

const Quote = Type.Object({ turn: Type.Integer({ description: 'The transcript turn (seq) quoted' }), quote: Type.String({ description: 'The candidate\'s own words, verbatim (… marks a cut)' }) });
const NullableQuote = Nullable(Quote);
const Report = Type.Object({
  object: Type.Literal('interview_report'), interview_id: Uuid, status: Status, status_code: StatusCode,
  method: Type.Literal('built_in'),
  scored: Type.Boolean({ description: 'false when the transcript guard found nothing scorable (quality says why)' }),
  quality: Type.Object({
    ok: Type.Boolean(), reason: Type.Optional(StringEnum(QUALITY_REASONS)), message: Type.Optional(Type.String()),
    stats: Type.Record(Type.String(), Type.Number()),
  }),
  overall_score: Nullable(Type.Integer({ minimum: 0, maximum: 100 })),
  recommendation: Nullable(StringEnum(['strong_yes', 'yes', 'lean_no', 'no'] as const, { description: 'Advisory' })),
  recommendation_note: Nullable(Type.String()),
  competencies: Type.Array(Type.Object({
    slug: Type.String(), name: Type.String(), measure: Type.String(),
    rating: Nullable(Type.Integer({ minimum: 1, maximum: 5 })), anchor: Nullable(Type.String({ description: 'The behavioural anchor of the rating' })),
    evidence: Type.Array(Quote), rationale: Type.String(),
  })),
  answers: Type.Array(Type.Object({
    position: Type.Integer(), title: Type.String(), asked: Type.Boolean(), answered: Type.Boolean(), words: Type.Integer(),
    star: Type.Optional(Type.Object({
      situation: NullableQuote, task: NullableQuote, action: NullableQuote, result: NullableQuote,
      missing: Type.Array(StringEnum(['situation', 'task', 'action', 'result'] as const)), ownership: StringEnum(['i', 'we', 'mixed', 'unclear'] as const),
    })),
    coverage: Type.Optional(Type.Object({
      covered: Type.Array(Type.Object({ point: Type.String(), turn: Type.Integer(), quote: Type.String() })), missed: Type.Array(Type.String()),
      ratio: Type.Number(), score: Type.Number(),
    })),
    design: Type.Optional(Type.Object({ requirements: NullableQuote, scale: NullableQuote, data: NullableQuote, trade_offs: NullableQuote, failure: NullableQuote })),
    coding: Type.Optional(Type.Object({ approach: NullableQuote, complexity: NullableQuote, testing: NullableQuote })),
  })),
  code: Type.Object({
    snapshots: Type.Array(Type.Object({
      turn: Type.Integer(), question_position: Nullable(Type.Integer()), language: Type.String(), ran: Type.Boolean(), status: Nullable(Type.String()), exit_code: Nullable(Type.Integer()),
    })),
    summary: Type.Object({ snapshots: Type.Integer(), runs: Type.Integer(), succeeded: Type.Integer(), failed: Type.Integer(), last_status: Nullable(Type.String()) }),
    tests: Type.Optional(Type.Array(Type.Object({
      question_position: Type.Integer(), problem: Type.String(), turn: Type.Integer(), language: Type.String(),
      passed: Nullable(Type.Integer()), total: Nullable(Type.Integer()), verdict: Nullable(Type.String()), note: Nullable(Type.String()),
    }), { description: 'Each problem\'s final code judged on the problem\'s own cases after the interview (absent from reports made before it was)' })),
  }),
  integrity: Type.Object({ signals: Type.Array(Type.Object({ type: Type.String(), count: Type.Integer() })), note: Type.String() }, { description: 'Kept apart: never changes the score' }),
  model_assessment: Nullable(Type.Object({
    status: StringEnum(['assessed', 'unavailable'] as const), model: Nullable(Type.String()), reason: Type.Optional(Type.String()), summary: Type.Optional(Type.String()),
    quotes_dropped: Type.Optional(Type.Integer({ description: 'Quotes the model gave that are not in the turn it cited' })),
    ratings_dropped: Type.Optional(Type.Integer({ description: 'Ratings left out because no quote the model gave for them (if any) was found in the candidate turn it cites' })),
    competencies: Type.Optional(Type.Array(Type.Object({ slug: Type.String(), rating: Type.Integer(), rationale: Type.String(), evidence: Type.Array(Quote) }))),
  }, { description: 'A model\'s rubric assessment beside the built-in one; null when the interview was not scored' })),
  created_at: UnixSeconds,
});

const CodeRunSchema = Type.Object({
  status: StringEnum(['ok', 'compile_error', 'runtime_error', 'time_limit', 'memory_limit', 'output_limit', 'unavailable'] as const),
  exit_code: Nullable(Type.Integer()), stdout: Type.String(), stderr: Type.String(), time_ms: Nullable(Type.Integer()),
});

/** The invitation as stored holds milliseconds, as every stored time does; the API speaks Unix seconds. */
function presentInvitation(invitation: Invitation | null) {
  return invitation && { ...invitation, sent_at: toUnixSeconds(invitation.sent_at) };
}

export function presentInterview(r: InterviewRow, now: number) {
  return {
    object: 'interview' as const, id: r.id, livemode: r.livemode === 1, candidate_id: r.candidate_id, status: r.status, status_code: STATUS_CODES[r.status],
    round_type: r.round_slug, round_name: r.round_name, difficulty: r.difficulty, role: r.role, resume_id: r.resume_id, company_id: r.company_id,
    language: r.language, duration_minutes: Math.ceil(r.duration_seconds / 60), scheduled_at: toUnixSeconds(r.scheduled_at), join_by: toUnixSeconds(r.join_by),
    joined_at: toUnixSeconds(r.joined_at), elapsed_seconds: Math.floor(Math.min(elapsedMs(r, now), r.duration_seconds * 1000) / 1000), ended_at: toUnixSeconds(r.ended_at),
    end_reason: r.end_reason as never, completed_at: toUnixSeconds(r.completed_at), failure_reason: r.failure_reason, overall_score: r.overall_score,
    invitation: presentInvitation(invitationOf(r)), created_at: toUnixSeconds(r.created_at), updated_at: toUnixSeconds(r.updated_at),
  };
}

function presentTimer(t: { row: InterviewRow; elapsedMs: number; remainingMs: number }, now: number) {
  return {
    object: 'interview_timer' as const, status: t.row.status, status_code: STATUS_CODES[t.row.status], running: t.row.status === 'in_progress',
    duration_seconds: t.row.duration_seconds, elapsed_seconds: Math.floor(t.elapsedMs / 1000), remaining_seconds: Math.ceil(t.remainingMs / 1000),
    server_time: toUnixSeconds(now),
  };
}

function presentPlan(row: InterviewRow, plan: PlannedQuestion[]) {
  return {
    object: 'interview_plan' as const, interview_id: row.id, editable: row.status === 'scheduled',
    data: plan.map((q) => ({
      object: 'interview_question' as const, position: q.position, source: q.source, question_id: q.questionId, title: q.title, prompt: q.prompt,
      minutes: q.minutes, key_points: q.keyPoints, follow_ups: q.followUps, asks: q.view ? 'view' as const : 'story' as const, problem: q.problem ? { slug: q.problem.slug, title: q.problem.title } : null,
    })),
  };
}

export function interviewRoutes(app: App, service: InterviewService, deps: { languages: Languages; channelUrl: string; now: () => number }): void {
  const secret = { auth: 'secret' as const, module: 'interviews' as const, tag: TAG };
  const candidate = { auth: 'session' as const, module: 'interviews' as const, subject: 'interview' as const, tag: TAG };
  const present = (row: InterviewRow) => presentInterview(row, deps.now());

  app.route({
    method: 'POST', url: '/v1/interviews',
    ...operation({ ...secret, id: 'createInterview', idempotent: true, errors: [404, 429], summary: 'Create an interview (emits interview.created)' }, {
      body: Type.Object({
        candidate_id: Uuid,
        round_type: Text({ min: 1, max: 80, description: 'A slug of GET /v1/round-types' }),
        difficulty: Type.Integer({ minimum: 1, maximum: 5, description: '1 entry … 5 principal' }),
        role: Visible(1, 200, 'The role interviewed for'),
        key: Type.Optional(Text({ min: 1, max: 512, description: 'The key of a resume registered for this candidate (POST /v1/resumes): the contract\'s name' })),
        resume_key: Type.Optional(Text({ min: 1, max: 512, description: 'The same as key (the name the interviews issue gives it); send one of the two' })),
        company_id: Type.Optional(Uuid),
        duration_minutes: Type.Optional(Type.Integer({ minimum: 5, maximum: 120, description: 'Default: the round type\'s; test mode caps it at 5' })),
        language: Type.Optional(Type.String({ pattern: '^[a-z]{2}(-[A-Z]{2})?$', maxLength: 5, description: 'The interview\'s language (BCP 47, e.g. en, en-GB); default en' })),
        scheduled_at: Type.Optional(UnixSeconds),
        questions: Type.Optional(Type.Array(CustomerQuestionSchema, { maxItems: CUSTOMER_QUESTIONS_MAX })),
        send_invitation: Type.Optional(Type.Boolean()),
      }, { additionalProperties: false }),
      response: { 201: Interview },
    }),
    handler: async (request, reply) => {
      const { key, resume_key: resumeKey, ...body } = request.body;
      if (key !== undefined && resumeKey !== undefined && key !== resumeKey) {
        throw new ApiError('parameter_invalid', { param: 'resume_key', message: 'key and resume_key name the same resume: send one of them.' });
      }
      const { row } = await service.create(tenantOf(request), { ...body, resume_key: key ?? resumeKey }).catch((error: unknown) => {
        // An unknown resume is named by the field the client sent.
        throw error instanceof ApiError && error.param === 'resume_key' && key !== undefined ? new ApiError(error.code, { param: 'key', message: error.message }) : error;
      });
      return reply.code(201).send(present(row) as never);
    },
  });

  app.route({
    method: 'GET', url: '/v1/interviews',
    ...operation({ ...secret, id: 'listInterviews', summary: 'Interviews, newest first' }, {
      querystring: ListQueryWith({ status: Type.Optional(Status), candidate_id: Type.Optional(Uuid) }),
      response: { 200: ListOf(Interview) },
    }),
    handler: async (request) => {
      const q = request.query;
      const page = await service.list(tenantOf(request), pageRequest(q), { status: q.status as never, candidateId: q.candidate_id });
      return listEnvelope(page, present) as never;
    },
  });

  app.route({
    method: 'GET', url: '/v1/interviews/slots',
    ...operation({ ...secret, id: 'listInterviewSlots', summary: `Bookable ${SLOT_MINUTES}-minute windows over the next ${SLOT_HORIZON_DAYS} days, with capacity left` }, {
      querystring: Type.Object({
        from: Type.Optional(UnixSeconds), to: Type.Optional(UnixSeconds), round_type: Type.Optional(Text({ min: 1, max: 80 })),
        limit: Type.Optional(Type.Integer({ minimum: 1, maximum: PAGE_LIMIT_MAX, default: PAGE_LIMIT_DEFAULT })), starting_after: Type.Optional(UnixSeconds),
      }, { additionalProperties: false }),
      response: {
        200: Type.Object({
          object: Type.Literal('list'), concurrency_limit: Type.Integer(), interview_minutes: Type.Integer({ description: 'The length each window is checked for' }),
          data: Type.Array(Type.Object({
            object: Type.Literal('interview_slot'), starts_at: UnixSeconds, ends_at: UnixSeconds,
            capacity: Type.Integer(), available: Type.Integer({ description: 'Interviews that can still be booked to start in this window' }),
          })),
          has_more: Type.Boolean(), next_cursor: Nullable(Type.String({ description: 'Pass as starting_after: the next window\'s start' })),
        }),
      },
    }),
    handler: async (request) => {
      const q = request.query;
      const from = q.starting_after !== undefined ? q.starting_after + 1 : q.from;
      if (q.from !== undefined && q.to !== undefined && q.to <= q.from) throw new ApiError('parameter_invalid', { param: 'to', message: 'to must be after from.' });
      const { windows, limit, durationMs } = await service.slots(tenantOf(request), { from, to: q.to, roundType: q.round_type });
      const pageSize = q.limit ?? PAGE_LIMIT_DEFAULT;
      const page = windows.slice(0, pageSize);
      const hasMore = windows.length > pageSize;
      return {
        object: 'list' as const, concurrency_limit: limit, interview_minutes: Math.ceil(durationMs / 60_000),
        data: page.map((w) => ({ object: 'interview_slot' as const, starts_at: toUnixSeconds(w.starts_at), ends_at: toUnixSeconds(w.ends_at), capacity: w.capacity, available: w.available })),
        has_more: hasMore, next_cursor: hasMore ? String(toUnixSeconds(page[page.length - 1].starts_at)) : null,
      };
    },
  });

  app.route({
    method: 'GET', url: '/v1/interviews/:id',
    ...operation({ ...secret, id: 'getInterview', summary: 'An interview' }, { params: IdParams, response: { 200: Interview } }),
    handler: async (request) => present(await service.get(tenantOf(request), request.params.id)) as never,
  });

  app.route({
    method: 'GET', url: '/v1/interviews/:id/questions',
    ...operation({ ...secret, id: 'listInterviewQuestions', summary: 'The plan: questions in order, with their guidance' }, { params: IdParams, response: { 200: Plan } }),
    handler: async (request) => {
      const { row, plan } = await service.questions(tenantOf(request), request.params.id);
      return presentPlan(row, plan) as never;
    },
  });

  app.route({
    method: 'POST', url: '/v1/interviews/:id/questions',
    ...operation({ ...secret, id: 'addInterviewQuestions', summary: 'Add questions of your own (until the candidate joins)' }, {
      params: IdParams,
      body: Type.Object({ questions: Type.Array(CustomerQuestionSchema, { minItems: 1, maxItems: CUSTOMER_QUESTIONS_MAX }) }, { additionalProperties: false }),
      response: { 200: Plan },
    }),
    handler: async (request) => {
      const { row, plan } = await service.addQuestions(tenantOf(request), request.params.id, request.body.questions as CustomerQuestion[]);
      return presentPlan(row, plan) as never;
    },
  });

  app.route({
    method: 'POST', url: '/v1/interviews/:id/cancel',
    ...operation({ ...secret, id: 'cancelInterview', summary: 'Cancel before the candidate joins (emits interview.cancelled)' }, { params: IdParams, response: { 200: Interview } }),
    handler: async (request) => present(await service.cancel(tenantOf(request), request.params.id)) as never,
  });

  app.route({
    method: 'POST', url: '/v1/interviews/:id/launch-link',
    ...operation({ ...secret, id: 'createInterviewLaunchLink', idempotent: true, secretResponse: true, summary: 'A single-use hosted link for the candidate' }, {
      params: IdParams, body: LaunchLinkBody, response: { 201: launchLinkSchema('interview') },
    }),
    handler: async (request, reply) => {
      const link = await service.launchLink(tenantOf(request), request.params.id, { ttlSeconds: request.body.ttl_seconds, redirectUrl: request.body.redirect_url });
      return reply.code(201).send({
        object: 'launch_link' as const, url: link.url, expires_at: toUnixSeconds(link.expiresAt), subject_kind: 'interview' as const,
        subject_id: request.params.id, redirect_url: link.redirectUrl,
      });
    },
  });

  app.route({
    method: 'POST', url: '/v1/interviews/:id/join',
    ...operation({ ...candidate, id: 'joinInterview', errors: [402], summary: 'Join (billable once: the first join spends one interview credit; rejoining resumes a pause)' }, {
      params: IdParams, response: { 200: Room },
    }),
    handler: async (request) => {
      const tenant = sessionTokenOf(request);
      const row = await service.join(tenant, request.params.id);
      const t = await service.timer(tenant, row.id);
      const languages = await deps.languages();
      return {
        object: 'interview_room' as const, interview_id: row.id, status: t.row.status, status_code: STATUS_CODES[t.row.status],
        channel: { url: deps.channelUrl, protocol: 'prep.interview.v1' },
        clock: { duration_seconds: row.duration_seconds, remaining_seconds: Math.ceil(t.remainingMs / 1000), running: t.row.status === 'in_progress' },
        code: { languages: languages.map((l) => l.id), options: languages.map((l) => ({ object: 'coding_language' as const, ...l })) },
        whiteboard: { content_type: 'image/png' as const, max_bytes: BOARD_MAX_BYTES, max_images: BOARD_MAX_IMAGES },
        recording: { enabled: row.livemode === 1 },
        round: { name: row.round_name, role: row.role },
        language: row.language,
      };
    },
  });

  app.route({
    method: 'POST', url: '/v1/interviews/:id/end',
    ...operation({ ...candidate, id: 'endInterview', summary: 'Close the room (emits interview.ended; scoring is queued)' }, { params: IdParams, response: { 200: Interview } }),
    handler: async (request) => present(await service.end(sessionTokenOf(request), request.params.id)) as never,
  });

  app.route({
    method: 'GET', url: '/v1/interviews/:id/timer',
    ...operation({ ...candidate, id: 'getInterviewTimer', summary: 'Time left by the server\'s clock (it runs only while the interview is in progress)' }, {
      params: IdParams, response: { 200: Timer },
    }),
    handler: async (request) => {
      const t = await service.timer(sessionTokenOf(request), request.params.id);
      return presentTimer(t, deps.now());
    },
  });

  app.route({
    method: 'POST', url: '/v1/interviews/:id/pause',
    ...operation({ ...candidate, id: 'pauseInterview', summary: 'Stop the clock while the candidate is away (joining again resumes it)' }, { params: IdParams, response: { 200: Timer } }),
    handler: async (request) => {
      const tenant = sessionTokenOf(request);
      await service.pause(tenant, request.params.id);
      const t = await service.timer(tenant, request.params.id);
      return presentTimer(t, deps.now());
    },
  });

  app.route({
    method: 'POST', url: '/v1/interviews/:id/code',
    ...operation({ ...candidate, id: 'shareInterviewCode', idempotent: true, errors: [429, 503], summary: 'Keep a code snapshot in the transcript; with run, execute it in the sandbox' }, {
      params: IdParams,
      body: Type.Object({
        language: Text({ min: 1, max: 32 }), source: Type.String({ maxLength: 64 * 1024 }),
        run: Type.Optional(Type.Boolean()), stdin: Type.Optional(Type.String({ maxLength: 64 * 1024 })),
      }, { additionalProperties: false }),
      response: { 201: Type.Object({ object: Type.Literal('interview_code'), interview_id: Uuid, turn: Type.Integer(), language: Type.String(), run: Nullable(CodeRunSchema) }) },
    }),
    handler: async (request, reply) => {
      const { turn, run } = await service.code(sessionTokenOf(request), request.params.id, request.body);
      return reply.code(201).send({
        object: 'interview_code' as const, interview_id: request.params.id, turn: turn.seq, language: request.body.language,
        run: run ? { status: run.status, exit_code: run.exitCode, stdout: run.stdout, stderr: run.stderr, time_ms: run.timeMs } : null,
      });
    },
  });

  app.route({
    method: 'POST', url: '/v1/interviews/:id/board-upload-url',
    ...operation({ ...candidate, id: 'createInterviewBoardUploadUrl', idempotent: true, summary: `A signed PUT for one whiteboard PNG (at most ${BOARD_MAX_BYTES} bytes, ${BOARD_MAX_IMAGES} per interview)` }, {
      params: IdParams,
      response: {
        201: Type.Object({
          object: Type.Literal('board_upload'), upload_url: Type.String({ format: 'uri' }), key: Type.String(), expires_in: Type.Integer(),
          max_bytes: Type.Integer(), content_type: Type.Literal('image/png'), turn: Type.Integer({ description: 'The transcript turn the image joins' }),
        }),
      },
    }),
    handler: async (request, reply) => {
      const upload = await service.boardUploadUrl(sessionTokenOf(request), request.params.id);
      return reply.code(201).send({
        object: 'board_upload' as const, upload_url: upload.url, key: upload.key, expires_in: upload.expiresIn, max_bytes: BOARD_MAX_BYTES,
        content_type: 'image/png' as const, turn: upload.turn.seq,
      });
    },
  });

  app.route({
    method: 'POST', url: '/v1/interviews/:id/events',
    ...operation({ ...candidate, id: 'recordInterviewEvents', summary: 'Proctoring signals (each with type or event; meta is accepted and not stored)' }, {
      params: IdParams,
      body: Type.Object({
        events: Type.Array(Type.Object({
          type: Type.Optional(ProctoringEventType), event: Type.Optional(ProctoringEventType),
          meta: Type.Optional(Type.Record(Type.String({ maxLength: 64 }), Type.Unknown(), { maxProperties: 32 })),
        }, { additionalProperties: false }), { minItems: 1, maxItems: 100 }),
      }, { additionalProperties: false }),
      response: { 202: Type.Object({ object: Type.Literal('proctoring_events'), recorded: Type.Integer() }) },
    }),
    handler: async (request, reply) => {
      const types = request.body.events.map((e, i) => {
        const name = e.type ?? e.event;
        if (name === undefined) throw new ApiError('parameter_missing', { param: `events[${i}].type`, message: 'Each event needs type (or event).' });
        if (e.type !== undefined && e.event !== undefined && e.type !== e.event) {
          throw new ApiError('parameter_invalid', { param: `events[${i}].event`, message: 'type and event disagree; send one of them.' });
        }
        // The server's own signal (each pause): outside the room's cap, so the room may not send it.
        if (name === PAUSE_SIGNAL) {
          throw new ApiError('parameter_invalid', { param: `events[${i}].${e.type === undefined ? 'event' : 'type'}`, message: `${PAUSE_SIGNAL} is recorded by the server when the interview is paused.` });
        }
        return name;
      });
      const recorded = await service.recordEvents(sessionTokenOf(request), request.params.id, types);
      return reply.code(202).send({ object: 'proctoring_events' as const, recorded });
    },
  });

  app.route({
    method: 'GET', url: '/v1/interviews/:id/transcript',
    ...operation({ ...secret, id: 'getInterviewTranscript', summary: 'The transcript (transcript_not_ready until processed)' }, {
      params: IdParams,
      response: {
        200: Type.Object({
          object: Type.Literal('interview_transcript'), interview_id: Uuid, status: Status, status_code: StatusCode, created_at: UnixSeconds,
          turns: Type.Array(Type.Object({
            seq: Type.Integer(), speaker: StringEnum(['interviewer', 'candidate'] as const), kind: StringEnum(['text', 'code', 'board'] as const),
            text: Type.String(), question_position: Nullable(Type.Integer()), at_seconds: Type.Integer({ description: 'Interview clock when said' }), created_at: UnixSeconds,
            code: Type.Optional(Type.Object({ language: Type.String(), source: Type.String(), run: Nullable(CodeRunSchema) })),
            image: Type.Optional(Type.Object({ uploaded: Type.Boolean(), url: Nullable(Type.String({ format: 'uri', description: 'Signed, expires in 10 minutes' })) })),
          })),
        }),
      },
    }),
    handler: async (request) => {
      const { row, transcript, createdAt } = await service.transcript(tenantOf(request), request.params.id);
      const turns = await Promise.all(transcript.map(async (t) => ({
        ...t,
        image: t.image ? { uploaded: t.image.uploaded, url: t.image.uploaded ? await service.imageUrl(t.image.key) : null } : undefined,
      })));
      return {
        object: 'interview_transcript' as const, interview_id: row.id, status: row.status, status_code: STATUS_CODES[row.status],
        created_at: toUnixSeconds(createdAt), turns,
      } as never;
    },
  });

  app.route({
    method: 'GET', url: '/v1/interviews/:id/report',
    ...operation({ ...secret, id: 'getInterviewReport', summary: 'The report (report_not_ready until scored)' }, {
      params: IdParams,
      response: { 200: Report },
    }),
    handler: async (request) => {
      const { row, report, createdAt } = await service.report(tenantOf(request), request.params.id);
      return {
        object: 'interview_report' as const, interview_id: row.id, status: row.status, status_code: STATUS_CODES[row.status],
        ...report, created_at: toUnixSeconds(createdAt),
      } as never;
    },
  });

  app.route({
    method: 'GET', url: '/v1/interviews/:id/recording-url',
    ...operation({ ...secret, id: 'getInterviewRecordingUrl', summary: 'A signed, expiring link to the recording (live mode only)' }, {
      params: IdParams,
      response: { 200: Type.Object({ object: Type.Literal('interview_recording'), interview_id: Uuid, url: Type.String({ format: 'uri' }), expires_in: Type.Integer(), content_type: Type.String() }) },
    }),
    handler: async (request) => {
      const { url, expiresIn, contentType } = await service.recordingUrl(tenantOf(request), request.params.id);
      return { object: 'interview_recording' as const, interview_id: request.params.id, url, expires_in: expiresIn, content_type: contentType };
    },
  });
}
