import { Type, type Static } from 'typebox';
import type { App } from '../../app-types.js';
import type { CodingSessionsTable, CodingTestsTable } from '../../db/schema.js';
import { toUnixSeconds } from '../../platform/clock.js';
import { tenantOf } from '../../platform/context.js';
import { listEnvelope, pageRequest } from '../../platform/pagination.js';
import { operation } from '../../platform/route.js';
import { IdParams, ListQueryWith, ListWithTotal, Nullable, Slug, StringEnum, UnixSeconds, Uuid } from '../../platform/schemas.js';
import { AssessmentStatusSchema, lifecycleRoutes } from '../assessments/routes.js';
import { CodingLanguage } from './judging-routes.js';
import { assignmentEndsAt, type CodingService } from './service.js';

const Difficulty = StringEnum(['easy', 'medium', 'hard'] as const);
const Status = AssessmentStatusSchema;

const Problem = Type.Object({
  id: Uuid, slug: Type.String(), title: Type.String(), difficulty: Difficulty, skills: Type.Array(Type.String()),
  statement: Type.String({ description: 'Markdown' }), input_format: Type.String(), output_format: Type.String(), constraints: Type.String(),
  examples: Type.Array(Type.Object({ input: Type.String(), output: Type.String(), explanation: Type.Optional(Type.String()) })),
  time_limit_ms: Type.Integer(), memory_limit_mb: Type.Integer(),
});

const CodingTest = Type.Object({
  object: Type.Literal('coding_test'), id: Uuid, slug: Type.String(), name: Type.String(), description: Type.String(),
  difficulty: Difficulty, skills: Type.Array(Type.String()),
  duration_minutes: Nullable(Type.Integer({ description: 'null: untimed' })),
  slot_count: Type.Integer(), custom: Type.Boolean({ description: "true for the organisation's own tests" }), created_at: UnixSeconds,
});

const CodingTestDetail = Type.Object({
  ...CodingTest.properties,
  slots: Type.Array(Type.Object({
    position: Type.Integer(), title: Type.String(),
    variants: Type.Integer({ description: 'Problems in this slot\'s pool; each session draws one' }),
    example_problem: Problem,
  })),
});

const CodingSession = Type.Object({
  object: Type.Literal('coding_session'), id: Uuid, livemode: Type.Boolean(), status: Status,
  candidate_id: Nullable(Uuid), coding_test_id: Uuid,
  duration_seconds: Nullable(Type.Integer({ description: 'Time allowed once started; null: untimed' })),
  created_at: UnixSeconds, updated_at: UnixSeconds,
  started_at: Nullable(UnixSeconds), deadline_at: Nullable(UnixSeconds), ended_at: Nullable(UnixSeconds),
  assignment_expires_at: UnixSeconds,
});

const CodingSessionDetail = Type.Object({
  ...CodingSession.properties,
  problems: Type.Array(Type.Object({
    position: Type.Integer(), slot_title: Type.String(), problem: Problem,
    attempts_used: Type.Integer(), attempts_remaining: Type.Integer(), scored: Type.Boolean(),
  })),
});

const Assignment = Type.Object({ ...CodingSessionDetail.properties, resumed: Type.Boolean() });


const TAG = 'Coding tests';

function presentTest(t: CodingTestsTable, slotCount: number) {
  return {
    object: 'coding_test' as const, id: t.id, slug: t.slug, name: t.name, description: t.description, difficulty: t.difficulty,
    skills: JSON.parse(t.skills) as string[], duration_minutes: t.duration_minutes, slot_count: slotCount,
    custom: t.organization_id !== null, created_at: toUnixSeconds(t.created_at),
  };
}

export function presentCodingSession(r: CodingSessionsTable) {
  return {
    object: 'coding_session' as const, id: r.id, livemode: r.livemode === 1, status: r.status, candidate_id: r.candidate_id,
    coding_test_id: r.test_id, duration_seconds: r.duration_seconds, created_at: toUnixSeconds(r.created_at), updated_at: toUnixSeconds(r.updated_at),
    started_at: toUnixSeconds(r.started_at), deadline_at: toUnixSeconds(r.deadline_at), ended_at: toUnixSeconds(r.ended_at),
    assignment_expires_at: toUnixSeconds(assignmentEndsAt(r)),
  };
}

function presentDetail(d: { row: CodingSessionsTable; problems: unknown[] }) {
  return { ...presentCodingSession(d.row), problems: d.problems as never };
}

/** What the candidate's room needs to open the editor: the languages this deployment runs. */
export type Languages = () => Promise<Array<Omit<Static<typeof CodingLanguage>, 'object'>>>;

export function codingRoutes(app: App, service: CodingService, languages: Languages): void {
  const secret = { auth: 'secret' as const, module: 'coding' as const, tag: TAG };

  lifecycleRoutes(app, {
    path: '/v1/coding-sessions', tag: TAG, kind: 'coding', module: 'coding', noun: { one: 'Coding session', many: 'Coding sessions' },
    testField: 'coding_test_id', service,
    summary: CodingSession, presentSummary: presentCodingSession,
    assignment: Assignment, presentAssignment: presentDetail,
    started: Type.Object({ ...CodingSessionDetail.properties, languages: Type.Array(CodingLanguage, { description: 'The languages the room may offer, with starter templates' }) }),
    presentStarted: async (detail) => ({ ...presentDetail(detail), languages: (await languages()).map((l) => ({ object: 'coding_language' as const, ...l })) }),
    ids: { list: 'listCodingSessions', assign: 'assignCodingTest', cancel: 'cancelCodingSession', launchLink: 'createCodingLaunchLink', start: 'startCodingSession' },
    timed: { timerObject: 'coding_timer', timerId: 'getCodingTimer', eventsId: 'recordCodingEvents' },
  });

  app.route({
    method: 'GET', url: '/v1/coding-tests',
    ...operation({ ...secret, id: 'listCodingTests', summary: 'The shared catalogue and the organisation\'s own tests' }, {
      querystring: ListQueryWith({ skill_slug: Type.Optional(Slug), difficulty: Type.Optional(Difficulty) }),
      response: { 200: ListWithTotal(CodingTest) },
    }),
    handler: async (request) => {
      const { skill_slug, difficulty } = request.query;
      const { page, total, slots } = await service.listTests(tenantOf(request).organizationId, pageRequest(request.query), { skill: skill_slug, difficulty });
      return { ...listEnvelope(page, (t) => presentTest(t, slots.get(t.id) ?? 0)), total_count: total };
    },
  });

  app.route({
    method: 'GET', url: '/v1/coding-tests/:id',
    ...operation({ ...secret, id: 'getCodingTest', summary: 'A test with one example problem per slot' }, { params: IdParams, response: { 200: CodingTestDetail } }),
    handler: async (request) => {
      const { test, slots } = await service.getTest(tenantOf(request).organizationId, request.params.id);
      return { ...presentTest(test, slots.length), slots };
    },
  });

  app.route({
    method: 'GET', url: '/v1/coding-sessions/:id',
    ...operation({ ...secret, id: 'getCodingSession', summary: 'A session with its locked problems' }, { params: IdParams, response: { 200: CodingSessionDetail } }),
    handler: async (request) => presentDetail(await service.get(tenantOf(request), request.params.id)),
  });
}
