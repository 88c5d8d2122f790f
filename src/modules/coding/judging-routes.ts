import { Type } from 'typebox';
import type { App } from '../../app-types.js';
import { toUnixSeconds } from '../../platform/clock.js';
import { sessionTokenOf, tenantOf } from '../../platform/context.js';
import { listEnvelope, memoryPage, pageRequest } from '../../platform/pagination.js';
import { operation } from '../../platform/route.js';
import { IdParams, ListOf, ListQuery, ListQueryWith, ListWithTotal, Nullable, StringEnum, Text, UnixSeconds, Uuid } from '../../platform/schemas.js';
import { VERDICTS } from '../../sandbox/verdicts.js';
import type { JudgingService } from './judging.js';
import type { SubmissionView } from './judging-repo.js';
import type { SubmissionResults } from './report.js';

const TAG = 'Coding tests';
const SOURCE_MAX = 65_536;
const STDIN_MAX = 262_144;

const Language = Text({ min: 1, max: 32, pattern: '^[a-z0-9+#-]+$', description: 'A language id from GET /v1/coding-languages' });
const Source = Text({ min: 1, max: SOURCE_MAX, description: 'The program, read from stdin and writing to stdout' });
const Verdict = StringEnum([...VERDICTS, 'PENDING'] as const);
const RunVerdict = StringEnum([...VERDICTS, 'COMPLETED'] as const, { description: 'COMPLETED: ran on custom stdin and exited normally' });
const SubmissionStatus = StringEnum(['queued', 'running', 'judged', 'error'] as const);

export const CodingLanguage = Type.Object({
  object: Type.Literal('coding_language'), id: Type.String(), name: Type.String(), version: Type.String(),
  file_name: Type.String({ description: 'The name the source is saved as (Java: class Main)' }),
  starter_template: Type.String({ description: 'The program an editor opens with: reads stdin, leaves the solving to the candidate' }),
});

const Compile = Nullable(Type.Object({ ok: Type.Boolean(), output: Type.String(), time_ms: Type.Optional(Type.Integer()) }));

const RunResult = Type.Object({
  object: Type.Literal('coding_run'), problem_id: Uuid, language: Type.String(), verdict: RunVerdict, compile: Compile,
  results: Type.Array(Type.Object({
    name: Type.String({ description: 'example-N, or stdin' }), verdict: RunVerdict,
    input: Type.Optional(Type.String()), expected_output: Type.Optional(Type.String()),
    stdout: Type.String(), stdout_truncated: Type.Boolean(), stderr: Type.String(), stderr_truncated: Type.Boolean(),
    exit_code: Nullable(Type.Integer()), signal: Nullable(Type.Integer()),
    time_ms: Type.Integer({ description: 'CPU time' }), wall_time_ms: Type.Integer(), memory_kb: Type.Integer({ description: 'Peak resident memory' }),
  })),
});

const Receipt = Type.Object({
  object: Type.Literal('coding_submission'), id: Uuid, problem_id: Uuid, language: Type.String(), status: SubmissionStatus, verdict: Verdict,
  remaining: Type.Integer({ description: 'Attempts left at this problem after this submission' }), created_at: UnixSeconds,
});

const Submission = Type.Object({
  object: Type.Literal('coding_submission'), id: Uuid, problem_id: Uuid, language: Type.String(), status: SubmissionStatus,
  verdict: StringEnum([...VERDICTS, 'PENDING'] as const, { description: 'PENDING until status is judged' }),
  cases_passed: Type.Integer(), cases_total: Type.Integer(),
  compile: Compile,
  cases: Type.Array(Type.Object({
    name: Type.String(), kind: StringEnum(['example', 'hidden'] as const), passed: Type.Boolean(), verdict: Verdict,
    time_ms: Type.Optional(Type.Integer({ description: 'Examples only' })),
  }), { description: 'Hidden cases show pass/fail and verdict only, never their input or expected output' }),
  max_time_ms: Nullable(Type.Integer({ description: 'Over the examples only' })), max_memory_kb: Nullable(Type.Integer({ description: 'Over the examples only' })),
  error: Nullable(Type.String({ description: 'Why judging failed (status error)' })),
  created_at: UnixSeconds, judged_at: Nullable(UnixSeconds),
});

const Finalization = Type.Object({
  object: Type.Literal('coding_session'), id: Uuid,
  status: StringEnum(['in_progress', 'completed', 'timed_out'] as const, { description: 'May still read in_progress: scoring is asynchronous' }),
  finalize_requested_at: Nullable(UnixSeconds),
  report_status: StringEnum(['pending', 'ready'] as const),
});

const Report = Type.Object({
  object: Type.Literal('coding_report'), session_id: Uuid, status: Type.String(), created_at: UnixSeconds,
  outcome: StringEnum(['completed', 'timed_out', 'abandoned'] as const),
  overall_score: Type.Integer({ minimum: 0, maximum: 100 }), problems_solved: Type.Integer(), problems_total: Type.Integer(),
  duration_seconds: Nullable(Type.Integer()), summary: Type.String(), evaluator: Type.String(),
  problems: Type.Array(Type.Object({
    position: Type.Integer(), slot_title: Type.String(), problem_id: Uuid, title: Type.String(), solved: Type.Boolean(),
    verdict: Nullable(Type.String()), language: Nullable(Type.String()), score: Type.Integer(),
    correctness: Type.Object({ hidden_cases_passed: Type.Integer(), hidden_cases_total: Type.Integer(), score: Type.Number() }),
    efficiency: Type.Object({
      rating: StringEnum(['efficient', 'acceptable', 'slow', 'too_slow', 'not_measured'] as const), explanation: Type.String(),
      candidate_time_ms: Type.Optional(Type.Integer()), reference_time_ms: Type.Optional(Type.Integer()),
      reference_language: Type.Optional(Type.String()), ratio: Type.Optional(Type.Number()), large_cases_timed_out: Type.Optional(Type.Integer()),
    }),
    attempts: Type.Object({ used: Type.Integer(), allowed: Type.Integer(), judged: Type.Integer() }),
    time_to_best_seconds: Nullable(Type.Integer()), best_submission_id: Nullable(Uuid),
  })),
  proctoring: Type.Object({ total: Type.Integer(), by_type: Type.Array(Type.Object({ type: Type.String(), count: Type.Integer() })) }),
  code_review: Nullable(Type.Object({
    model: Type.String(),
    problems: Type.Array(Type.Object({
      problem_id: Uuid, submission_id: Uuid,
      review: Nullable(Type.String({ description: 'Advisory; null when the model did not answer' })),
    })),
  }, { description: 'Present when a model is configured (PREP_MODEL_BASE_URL); null otherwise' })),
});

function presentSubmission(s: SubmissionView) {
  const results = s.results ? (JSON.parse(s.results) as SubmissionResults) : { compile: null, cases: [] };
  return {
    object: 'coding_submission' as const, id: s.id, problem_id: s.problem_id, language: s.language, status: s.status,
    verdict: (s.status === 'judged' ? s.verdict : 'PENDING') as never,
    cases_passed: s.cases_passed, cases_total: s.cases_total, compile: results.compile,
    cases: results.cases.map((c) => (c.kind === 'hidden'
      ? { name: c.name, kind: c.kind, passed: c.passed, verdict: c.verdict as never }
      : { name: c.name, kind: c.kind, passed: c.passed, verdict: c.verdict as never, time_ms: c.time_ms })),
    max_time_ms: s.max_time_ms, max_memory_kb: s.max_memory_kb, error: s.error,
    created_at: toUnixSeconds(s.created_at), judged_at: toUnixSeconds(s.judged_at),
  };
}

export function judgingRoutes(app: App, service: JudgingService): void {
  const candidate = { auth: 'session' as const, module: 'coding' as const, subject: 'coding' as const, tag: TAG };
  const SubmissionParams = Type.Object({ id: Uuid, sid: Uuid }, { additionalProperties: false });

  app.route({
    method: 'GET', url: '/v1/coding-languages',
    ...operation({ auth: 'secret', tag: 'Meta', id: 'listCodingLanguages', summary: 'Languages the execution sandbox runs on this deployment' }, {
      querystring: ListQuery, response: { 200: ListOf(CodingLanguage) },
    }),
    handler: async (request) => listEnvelope(memoryPage(await service.languages(), request.query), (l) => ({ object: 'coding_language' as const, ...l })),
  });

  app.route({
    method: 'POST', url: '/v1/coding-sessions/:id/run',
    ...operation({ ...candidate, id: 'runCode', errors: [503], summary: 'Run code on the examples or on custom stdin (nothing scored, no attempt used)' }, {
      params: IdParams,
      body: Type.Object({ problem_id: Uuid, language: Language, source: Source, stdin: Type.Optional(Text({ max: STDIN_MAX })) }, { additionalProperties: false }),
      response: { 200: RunResult },
    }),
    handler: async (request) => service.run(sessionTokenOf(request), request.params.id, request.body) as never,
  });

  app.route({
    method: 'POST', url: '/v1/coding-sessions/:id/submissions',
    ...operation({ ...candidate, id: 'submitCode', idempotent: true, errors: [503], summary: 'Submit an attempt; judged asynchronously against every case' }, {
      params: IdParams,
      body: Type.Object({ problem_id: Uuid, language: Language, source: Source }, { additionalProperties: false }),
      response: { 202: Receipt },
    }),
    handler: async (request, reply) => {
      const { submission, remaining } = await service.submit(sessionTokenOf(request), request.params.id, request.body);
      return reply.code(202).send({
        object: 'coding_submission' as const, id: submission.id, problem_id: submission.problem_id, language: submission.language,
        status: submission.status, verdict: 'PENDING' as const, remaining, created_at: toUnixSeconds(submission.created_at),
      });
    },
  });

  app.route({
    method: 'GET', url: '/v1/coding-sessions/:id/submissions',
    ...operation({ ...candidate, id: 'listSubmissions', summary: 'Submissions for one problem, oldest first' }, {
      params: IdParams,
      querystring: ListQueryWith({ problem_id: Uuid }),
      response: { 200: ListWithTotal(Submission) },
    }),
    handler: async (request) => {
      const { page, total } = await service.listSubmissions(sessionTokenOf(request), request.params.id, request.query.problem_id, pageRequest(request.query, 'asc'));
      return { ...listEnvelope(page, presentSubmission), total_count: total };
    },
  });

  app.route({
    method: 'GET', url: '/v1/coding-sessions/:id/submissions/:sid',
    ...operation({ ...candidate, id: 'getSubmission', summary: 'One submission (poll until status is judged)' }, {
      params: SubmissionParams, response: { 200: Submission },
    }),
    handler: async (request) => presentSubmission(await service.getSubmission(sessionTokenOf(request), request.params.id, request.params.sid)),
  });

  app.route({
    method: 'POST', url: '/v1/coding-sessions/:id/finalize',
    ...operation({ ...candidate, id: 'finalizeCodingSession', summary: 'Finish: no more runs or submissions; scored asynchronously (coding.completed follows)' }, {
      params: IdParams, response: { 202: Finalization },
    }),
    handler: async (request, reply) => {
      const { row, reportReady } = await service.finalize(sessionTokenOf(request), request.params.id);
      const done = row.status === 'completed' || row.status === 'timed_out';
      return reply.code(202).send({
        object: 'coding_session' as const, id: row.id, status: (done ? row.status : 'in_progress') as never,
        finalize_requested_at: toUnixSeconds(row.finalize_requested_at ?? null), report_status: done && reportReady ? 'ready' as const : 'pending' as const,
      });
    },
  });

  app.route({
    method: 'GET', url: '/v1/coding-sessions/:id/report',
    ...operation({ auth: 'secret', module: 'coding', tag: TAG, id: 'getCodingReport', summary: "The evaluator's judgement (never the submitted code)" }, {
      params: IdParams, response: { 200: Report },
    }),
    handler: async (request) => {
      const { row, report, createdAt } = await service.report(tenantOf(request), request.params.id);
      return { ...report, session_id: row.id, status: row.status, created_at: toUnixSeconds(createdAt) } as never;
    },
  });
}
