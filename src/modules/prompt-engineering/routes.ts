import { Type } from 'typebox';
import type { App } from '../../app-types.js';
import type { PromptAttemptsTable, PromptEngineeringSessionsTable } from '../../db/schema.js';
import { toUnixSeconds } from '../../platform/clock.js';
import { sessionTokenOf, tenantOf } from '../../platform/context.js';
import { listEnvelope, pageRequest } from '../../platform/pagination.js';
import { operation } from '../../platform/route.js';
import { IdParams, ListOf, ListQuery, ListQueryWith, ListWithTotal, Nullable, StringEnum, Text, UnixSeconds, Uuid } from '../../platform/schemas.js';
import { assignmentEndsAt } from '../assessments/lifecycle.js';
import { AssessmentStatusSchema, lifecycleRoutes } from '../assessments/routes.js';
import type { PromptAssessment, PromptTask } from './catalog.js';
import { SKILLS } from './content.js';
import type { AttemptResults } from './grading.js';
import { PROMPT_MAX_BYTES, type PromptEngineeringService, type SessionDetail } from './service.js';

const TAG = 'Prompt engineering';
const AttemptStatus = StringEnum(['queued', 'running', 'graded', 'error'] as const);
const Skill = StringEnum(SKILLS);

const SampleCase = Type.Object({ name: Type.String(), vars: Type.Record(Type.String(), Type.String()) });
const TaskSchema = Type.Object({
  object: Type.Literal('prompt_engineering_task'), id: Uuid, slug: Type.String(), title: Type.String(), skill: Skill,
  difficulty: StringEnum(['easy', 'medium', 'hard'] as const), brief: Type.String({ description: 'Markdown' }),
  variables: Type.Array(Type.String(), { description: 'Every one must appear in the prompt as {{name}}' }),
  pass_threshold: Type.Integer({ description: 'The score (0–100) at which an attempt passes the task' }),
  attempt_budget: Type.Integer(), max_output_tokens: Type.Integer(),
  sample_cases: Type.Array(SampleCase, { description: 'Public cases; hidden cases and every assertion are never shown' }),
  hidden_case_count: Type.Integer(),
});

const AssessmentSummary = Type.Object({
  object: Type.Literal('prompt_engineering_assessment'), id: Uuid, slug: Type.String(), name: Type.String(), description: Type.String(),
  duration_minutes: Type.Integer(), task_count: Type.Integer(), skills: Type.Array(Skill), custom: Type.Boolean(), created_at: UnixSeconds,
});
const AssessmentDetail = Type.Object({ ...AssessmentSummary.properties, tasks: Type.Array(TaskSchema) });

const Summary = Type.Object({
  object: Type.Literal('prompt_engineering_session'), id: Uuid, livemode: Type.Boolean(), status: AssessmentStatusSchema,
  candidate_id: Nullable(Uuid), prompt_engineering_assessment_id: Uuid, duration_seconds: Nullable(Type.Integer()),
  created_at: UnixSeconds, updated_at: UnixSeconds, started_at: Nullable(UnixSeconds), deadline_at: Nullable(UnixSeconds),
  ended_at: Nullable(UnixSeconds), finalize_requested_at: Nullable(UnixSeconds), assignment_expires_at: UnixSeconds,
});
const SessionTask = Type.Object({
  ...TaskSchema.properties, attempts_used: Type.Integer(), attempts_remaining: Type.Integer(),
  best_score: Nullable(Type.Number({ description: 'The best graded score so far (null before one)' })),
});
const Detail = Type.Object({ ...Summary.properties, tasks: Type.Array(SessionTask) });

const Span = Type.Object({ start: Type.Integer(), end: Type.Integer(), text: Type.String() });
const Craft = Type.Object({
  version: Type.String(), score: Type.Integer({ minimum: 0, maximum: 100 }),
  elements: Type.Array(Type.Object({
    key: Type.String(), name: Type.String(), found: Type.Boolean(), weight: Type.Integer(), spans: Type.Array(Span), advice: Type.String(),
  })),
}, { description: 'Deterministic analysis of how the prompt is built; a secondary score, apart from execution' });
const AssertionOutcome = Type.Object({ type: Type.String(), weight: Type.Number(), passed: Type.Boolean(), reason: Type.String() });
const CaseResult = Type.Object({
  name: Type.String({ description: 'hidden-N for hidden cases' }), kind: StringEnum(['sample', 'hidden'] as const), passed: Type.Boolean(),
  points: Type.Number(), points_possible: Type.Number(),
  vars: Type.Optional(Type.Record(Type.String(), Type.String())), rendered_prompt: Type.Optional(Type.String()), output: Type.Optional(Type.String()),
  output_truncated: Type.Optional(Type.Boolean()), assertions: Type.Optional(Type.Array(AssertionOutcome)),
  latency_ms: Type.Optional(Type.Integer()), input_tokens: Type.Optional(Nullable(Type.Integer())), output_tokens: Type.Optional(Nullable(Type.Integer())),
}, { description: 'Sample cases show everything; hidden cases only pass or fail and the points' });
const Attempt = Type.Object({
  object: Type.Literal('prompt_attempt'), id: Uuid, task_id: Uuid, status: AttemptStatus, prompt: Type.String(),
  execution: Nullable(StringEnum(['executed', 'unavailable'] as const, { description: 'null until graded' })),
  execution_reason: Nullable(Type.String({ description: 'Why the prompt was not run (execution unavailable)' })),
  score: Nullable(Type.Number({ description: 'Weighted points on hidden cases, 0–100; null unless executed' })),
  passed: Nullable(Type.Boolean({ description: 'score ≥ the task\'s pass_threshold' })),
  hidden_cases_passed: Nullable(Type.Integer()), hidden_cases_total: Type.Integer(),
  craft: Craft, cases: Type.Array(CaseResult),
  model: Nullable(Type.String()),
  input_tokens: Nullable(Type.Integer({ description: 'Summed over the sample cases (a hidden case\'s would tell of its input)' })),
  output_tokens: Nullable(Type.Integer({ description: 'Summed over the sample cases' })),
  latency_ms: Nullable(Type.Integer({ description: 'Model time summed over the sample cases' })),
  error: Nullable(Type.String({ description: 'Why grading failed (status error; the first two such attempts per task do not use up the budget)' })),
  created_at: UnixSeconds, graded_at: Nullable(UnixSeconds),
});
const Receipt = Type.Object({
  object: Type.Literal('prompt_attempt'), id: Uuid, task_id: Uuid, status: Type.Literal('queued'),
  remaining: Type.Integer({ description: 'Attempts left at this task after this one' }), created_at: UnixSeconds,
});
const Finalization = Type.Object({
  object: Type.Literal('prompt_engineering_session'), id: Uuid,
  status: StringEnum(['in_progress', 'completed', 'timed_out'] as const, { description: 'May still read in_progress: the report is made once every attempt is graded' }),
  finalize_requested_at: Nullable(UnixSeconds), report_status: StringEnum(['pending', 'ready'] as const),
});
const Report = Type.Object({
  object: Type.Literal('prompt_engineering_report'), session_id: Uuid, prompt_engineering_assessment_id: Uuid, status: AssessmentStatusSchema,
  outcome: StringEnum(['completed', 'timed_out', 'abandoned'] as const),
  execution: StringEnum(['executed', 'unavailable', 'not_attempted'] as const, { description: 'unavailable: no prompt was run on a model; the report grades craft only' }),
  overall_score: Nullable(Type.Number({ description: 'Mean of the tasks\' best scores; null unless executed' })),
  craft_score: Type.Number(), tasks_passed: Nullable(Type.Integer()), tasks_total: Type.Integer(), duration_seconds: Nullable(Type.Integer()),
  model: Nullable(Type.String()), tokens: Type.Object({ input: Type.Integer(), output: Type.Integer() }),
  proctoring: Type.Object({ total: Type.Integer(), by_type: Type.Array(Type.Object({ type: Type.String(), count: Type.Integer() })) }),
  summary: Type.String(),
  tasks: Type.Array(Type.Object({
    position: Type.Integer(), task_id: Uuid, title: Type.String(), skill: Type.String(), attempts_used: Type.Integer(), attempt_budget: Type.Integer(),
    best_attempt_id: Nullable(Uuid), score: Nullable(Type.Number()), hidden_cases_passed: Nullable(Type.Integer()), hidden_cases_total: Type.Integer(),
    hidden_pass_rate: Nullable(Type.Number({ description: 'Percent of hidden cases passed whole by the best attempt' })),
    pass_threshold: Type.Integer(), passed: Nullable(Type.Boolean()), craft_score: Type.Integer(), craft_found: Type.Array(Type.String()),
    time_seconds: Type.Integer({ description: 'Estimated: from the start or the previous attempt on any task to each attempt on this one' }),
  })),
  created_at: UnixSeconds,
});

function presentTask(t: PromptTask) {
  const d = t.definition;
  return {
    object: 'prompt_engineering_task' as const, id: t.id, slug: t.slug, title: t.title, skill: t.skill as never, difficulty: t.difficulty as never,
    brief: t.brief, variables: d.variables, pass_threshold: d.pass_threshold, attempt_budget: d.attempt_budget, max_output_tokens: d.max_output_tokens,
    sample_cases: d.sample_cases.map((c) => ({ name: c.name, vars: c.vars })), hidden_case_count: d.hidden_cases.length,
  };
}

function presentAssessment(a: PromptAssessment) {
  return {
    object: 'prompt_engineering_assessment' as const, id: a.id, slug: a.slug, name: a.name, description: a.description,
    duration_minutes: a.duration_minutes, task_count: a.tasks.length, skills: [...new Set(a.tasks.map((t) => t.skill))] as never,
    custom: a.organization_id !== null, created_at: toUnixSeconds(a.created_at),
  };
}

export function presentPromptSession(r: PromptEngineeringSessionsTable) {
  return {
    object: 'prompt_engineering_session' as const, id: r.id, livemode: r.livemode === 1, status: r.status, candidate_id: r.candidate_id,
    prompt_engineering_assessment_id: r.test_id, duration_seconds: r.duration_seconds, created_at: toUnixSeconds(r.created_at),
    updated_at: toUnixSeconds(r.updated_at), started_at: toUnixSeconds(r.started_at), deadline_at: toUnixSeconds(r.deadline_at),
    ended_at: toUnixSeconds(r.ended_at), finalize_requested_at: toUnixSeconds(r.finalize_requested_at), assignment_expires_at: toUnixSeconds(assignmentEndsAt(r)),
  };
}

function presentDetail(d: SessionDetail) {
  return {
    ...presentPromptSession(d.row),
    tasks: d.assessment.tasks.map((t) => {
      const p = d.progress.get(t.id) ?? { used: 0, best: null };
      return { ...presentTask(t), attempts_used: p.used, attempts_remaining: Math.max(0, t.definition.attempt_budget - p.used), best_score: p.best };
    }),
  };
}

/**
 * An attempt as the candidate sees it: hidden cases only say pass or fail and the points, under a neutral name, and
 * the model's tokens and time are the sample cases' alone: a hidden case's follow its input, and a prompt can make
 * the length of the reply spell out what the input holds ("answer with as many words as the order number has digits").
 */
function presentAttempt(a: PromptAttemptsTable, task: PromptTask | undefined) {
  const results = a.results ? (JSON.parse(a.results) as AttemptResults) : { cases: [] };
  const sample = results.cases.filter((c) => c.kind === 'sample');
  const usage = (pick: 'input_tokens' | 'output_tokens' | 'latency_ms') => (a[pick] === null ? null
    : sample.reduce<number | null>((s, c) => (s === null || c[pick] === null ? null : s + c[pick]!), 0));
  let hidden = 0;
  return {
    object: 'prompt_attempt' as const, id: a.id, task_id: a.task_id, status: a.status, prompt: a.prompt, execution: a.execution,
    execution_reason: a.execution_reason, score: a.score,
    passed: a.score === null || !task ? null : a.score >= task.definition.pass_threshold,
    hidden_cases_passed: a.hidden_passed, hidden_cases_total: a.hidden_total, craft: JSON.parse(a.craft),
    cases: results.cases.map((c) => (c.kind === 'hidden'
      ? { name: `hidden-${++hidden}`, kind: c.kind, passed: c.passed, points: c.points, points_possible: c.points_possible }
      : c)),
    model: a.model, input_tokens: usage('input_tokens'), output_tokens: usage('output_tokens'), latency_ms: usage('latency_ms'), error: a.error,
    created_at: toUnixSeconds(a.created_at), graded_at: toUnixSeconds(a.graded_at),
  };
}

export function promptEngineeringRoutes(app: App, service: PromptEngineeringService): void {
  const secret = { auth: 'secret' as const, module: 'prompt_engineering' as const, tag: TAG };
  const candidate = { auth: 'session' as const, module: 'prompt_engineering' as const, subject: 'prompt_engineering' as const, tag: TAG };
  const AttemptParams = Type.Object({ id: Uuid, aid: Uuid }, { additionalProperties: false });

  app.route({
    method: 'GET', url: '/v1/prompt-engineering-assessments',
    ...operation({ ...secret, id: 'listPromptEngineeringAssessments', summary: 'The shared catalogue and the organisation\'s own assessments' }, {
      querystring: ListQuery, response: { 200: ListOf(AssessmentSummary) },
    }),
    handler: async (request) => listEnvelope(await service.listAssessments(tenantOf(request).organizationId, pageRequest(request.query)), presentAssessment) as never,
  });

  app.route({
    method: 'GET', url: '/v1/prompt-engineering-assessments/:id',
    ...operation({ ...secret, id: 'getPromptEngineeringAssessment', summary: 'An assessment with its tasks (public parts only)' }, {
      params: IdParams, response: { 200: AssessmentDetail },
    }),
    handler: async (request) => {
      const a = await service.getAssessment(tenantOf(request).organizationId, request.params.id);
      return { ...presentAssessment(a), tasks: a.tasks.map(presentTask) } as never;
    },
  });

  lifecycleRoutes(app, {
    path: '/v1/prompt-engineering-sessions', tag: TAG, kind: 'prompt_engineering', module: 'prompt_engineering',
    noun: { one: 'Prompt-engineering session', many: 'Prompt-engineering sessions' }, testField: 'prompt_engineering_assessment_id', service,
    summary: Summary, presentSummary: presentPromptSession,
    assignment: Type.Object({ ...Detail.properties, resumed: Type.Boolean() }), presentAssignment: presentDetail,
    started: Detail, presentStarted: presentDetail,
    ids: {
      list: 'listPromptEngineeringSessions', assign: 'assignPromptEngineeringAssessment', cancel: 'cancelPromptEngineeringSession',
      launchLink: 'createPromptEngineeringLaunchLink', start: 'startPromptEngineeringSession',
    },
    timed: { timerObject: 'prompt_engineering_timer', timerId: 'getPromptEngineeringTimer', eventsId: 'recordPromptEngineeringEvents' },
  });

  app.route({
    method: 'GET', url: '/v1/prompt-engineering-sessions/:id',
    ...operation({ ...secret, id: 'getPromptEngineeringSession', summary: 'A session with its tasks and progress' }, { params: IdParams, response: { 200: Detail } }),
    handler: async (request) => presentDetail(await service.get(tenantOf(request), request.params.id)) as never,
  });

  app.route({
    method: 'POST', url: '/v1/prompt-engineering-sessions/:id/attempts',
    ...operation({ ...candidate, id: 'submitPromptAttempt', idempotent: true, rateClass: 'model', summary: 'Submit a prompt for one task; graded in the background against sample and hidden cases' }, {
      params: IdParams,
      body: Type.Object({
        task_id: Uuid,
        prompt: Text({ min: 1, max: PROMPT_MAX_BYTES, description: `At most ${PROMPT_MAX_BYTES} bytes of UTF-8; must use every variable of the task as {{name}}` }),
      }, { additionalProperties: false }),
      response: { 202: Receipt },
    }),
    handler: async (request, reply) => {
      const { attempt, remaining } = await service.submitAttempt(sessionTokenOf(request), request.params.id, request.body);
      return reply.code(202).send({
        object: 'prompt_attempt' as const, id: attempt.id, task_id: attempt.task_id, status: 'queued' as const, remaining, created_at: toUnixSeconds(attempt.created_at),
      });
    },
  });

  app.route({
    method: 'GET', url: '/v1/prompt-engineering-sessions/:id/attempts',
    ...operation({ ...candidate, id: 'listPromptAttempts', summary: 'Attempts at one task, oldest first' }, {
      params: IdParams, querystring: ListQueryWith({ task_id: Uuid }), response: { 200: ListWithTotal(Attempt) },
    }),
    handler: async (request) => {
      const { page, total, task } = await service.listAttempts(sessionTokenOf(request), request.params.id, request.query.task_id, pageRequest(request.query, 'asc'));
      return { ...listEnvelope(page, (a) => presentAttempt(a, task)), total_count: total } as never;
    },
  });

  app.route({
    method: 'GET', url: '/v1/prompt-engineering-sessions/:id/attempts/:aid',
    ...operation({ ...candidate, id: 'getPromptAttempt', summary: 'One attempt (poll until status is graded or error)' }, {
      params: AttemptParams, response: { 200: Attempt },
    }),
    handler: async (request) => {
      const { attempt, task } = await service.getAttempt(sessionTokenOf(request), request.params.id, request.params.aid);
      return presentAttempt(attempt, task) as never;
    },
  });

  app.route({
    method: 'POST', url: '/v1/prompt-engineering-sessions/:id/finalize',
    ...operation({ ...candidate, id: 'finalizePromptEngineeringSession', summary: 'Finish: no more attempts; the report follows once every attempt is graded (prompt_engineering.completed)' }, {
      params: IdParams, response: { 202: Finalization },
    }),
    handler: async (request, reply) => {
      const { row, reportReady } = await service.finalize(sessionTokenOf(request), request.params.id);
      const done = row.status === 'completed' || row.status === 'timed_out';
      return reply.code(202).send({
        object: 'prompt_engineering_session' as const, id: row.id, status: (done ? row.status : 'in_progress') as never,
        finalize_requested_at: toUnixSeconds(row.finalize_requested_at), report_status: done && reportReady ? 'ready' as const : 'pending' as const,
      });
    },
  });

  app.route({
    method: 'GET', url: '/v1/prompt-engineering-sessions/:id/report',
    ...operation({ ...secret, id: 'getPromptEngineeringReport', summary: 'Per task the best attempt\'s score, hidden-case pass rate, craft, attempts and time; overall score' }, {
      params: IdParams, response: { 200: Report },
    }),
    handler: async (request) => {
      const { row, report, createdAt } = await service.report(tenantOf(request), request.params.id);
      const total = report.proctoring.reduce((s, p) => s + p.count, 0);
      return {
        object: 'prompt_engineering_report' as const, session_id: row.id, prompt_engineering_assessment_id: row.test_id, status: row.status,
        ...report, proctoring: { total, by_type: report.proctoring }, created_at: toUnixSeconds(createdAt),
      } as never;
    },
  });
}
