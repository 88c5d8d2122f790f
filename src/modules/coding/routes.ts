import { Type, type Static } from 'typebox';
import type { App } from '../../app-types.js';
import type { CodingSessionsTable, CodingTestsTable } from '../../db/schema.js';
import { toUnixSeconds } from '../../platform/clock.js';
import { sessionOf, tenantOf } from '../../platform/context.js';
import { listEnvelope, pageRequest } from '../../platform/pagination.js';
import { operation } from '../../platform/route.js';
import { IdParams, ListQueryWith, ListWithTotal, Nullable, Slug, StringEnum, Text, UnixSeconds, Uuid } from '../../platform/schemas.js';
import { LAUNCH_TTL_DEFAULT, LAUNCH_TTL_MAX, LAUNCH_TTL_MIN } from '../sessions/service.js';
import { CodingLanguage } from './judging-routes.js';
import { assignmentEndsAt, PROCTORING_EVENTS_CAP, type CodingService } from './service.js';

const Difficulty = StringEnum(['easy', 'medium', 'hard'] as const);
const Status = StringEnum(['assigned', 'started', 'in_progress', 'completed', 'timed_out', 'cancelled'] as const);

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

const LaunchLink = Type.Object({
  object: Type.Literal('launch_link'), url: Type.String({ format: 'uri', description: 'Hosted page; the token is in the fragment and shown only here' }),
  expires_at: UnixSeconds, subject_kind: Type.Literal('coding'), subject_id: Uuid, redirect_url: Nullable(Type.String({ format: 'uri' })),
});

const Timer = Type.Object({
  object: Type.Literal('coding_timer'), timed: Type.Boolean(),
  remaining_seconds: Type.Integer({ description: 'Meaningless (0) when timed is false' }),
  status: Status, deadline_at: Nullable(UnixSeconds), server_time: UnixSeconds,
});

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
type Languages = () => Promise<Array<Omit<Static<typeof CodingLanguage>, 'object'>>>;

export function codingRoutes(app: App, service: CodingService, languages: Languages): void {
  const secret = { auth: 'secret' as const, module: 'coding' as const, tag: TAG };
  const candidate = { auth: 'session' as const, module: 'coding' as const, subject: 'coding' as const, tag: TAG };

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
    method: 'GET', url: '/v1/coding-sessions',
    ...operation({ ...secret, id: 'listCodingSessions', summary: 'Coding sessions, newest first' }, {
      querystring: ListQueryWith({ status: Type.Optional(Status) }),
      response: { 200: ListWithTotal(CodingSession) },
    }),
    handler: async (request) => {
      const { page, total } = await service.list(tenantOf(request), pageRequest(request.query), request.query.status);
      return { ...listEnvelope(page, presentCodingSession), total_count: total };
    },
  });

  app.route({
    method: 'POST', url: '/v1/coding-sessions',
    ...operation({
      ...secret, id: 'assignCodingTest', idempotent: true, errors: [402, 404],
      summary: 'Assign a test to a candidate (reserves one coding credit; an open assignment is returned with resumed: true)',
    }, {
      body: Type.Object({ candidate_id: Uuid, coding_test_id: Uuid }, { additionalProperties: false }),
      response: { 200: Assignment, 201: Assignment },
    }),
    handler: async (request, reply) => {
      const result = await service.assign(tenantOf(request), request.body);
      return reply.code(result.resumed ? 200 : 201).send({ ...presentDetail(result), resumed: result.resumed });
    },
  });

  app.route({
    method: 'GET', url: '/v1/coding-sessions/:id',
    ...operation({ ...secret, id: 'getCodingSession', summary: 'A session with its locked problems' }, { params: IdParams, response: { 200: CodingSessionDetail } }),
    handler: async (request) => presentDetail(await service.get(tenantOf(request), request.params.id)),
  });

  app.route({
    method: 'POST', url: '/v1/coding-sessions/:id/cancel',
    ...operation({ ...secret, id: 'cancelCodingSession', summary: 'Cancel before it starts (the credit comes back)' }, { params: IdParams, response: { 200: CodingSession } }),
    handler: async (request) => presentCodingSession(await service.cancel(tenantOf(request), request.params.id)),
  });

  app.route({
    method: 'POST', url: '/v1/coding-sessions/:id/launch-link',
    ...operation({ ...secret, id: 'createCodingLaunchLink', idempotent: true, secretResponse: true, summary: 'A single-use hosted link for the candidate' }, {
      params: IdParams,
      body: Type.Object({
        ttl_seconds: Type.Optional(Type.Integer({ minimum: LAUNCH_TTL_MIN, maximum: LAUNCH_TTL_MAX, default: LAUNCH_TTL_DEFAULT })),
        redirect_url: Type.Optional(Type.String({ format: 'uri', maxLength: 2048, pattern: '^https?://[^/?#\\s]' })),
      }, { additionalProperties: false }),
      response: { 201: LaunchLink },
    }),
    handler: async (request, reply) => {
      const link = await service.launchLink(tenantOf(request), request.params.id, { ttlSeconds: request.body.ttl_seconds, redirectUrl: request.body.redirect_url });
      return reply.code(201).send({
        object: 'launch_link' as const, url: link.url, expires_at: toUnixSeconds(link.expiresAt), subject_kind: 'coding' as const,
        subject_id: request.params.id, redirect_url: link.redirectUrl,
      });
    },
  });

  app.route({
    method: 'POST', url: '/v1/coding-sessions/:id/start',
    ...operation({ ...candidate, id: 'startCodingSession', summary: 'Start the clock (once; a repeat returns the same started_at)' }, {
      params: IdParams,
      response: { 200: Type.Object({ ...CodingSessionDetail.properties, languages: Type.Array(CodingLanguage, { description: 'The languages the room may offer, with starter templates' }) }) },
    }),
    handler: async (request) => {
      const [detail, available] = await Promise.all([service.start(sessionOf(request), request.params.id), languages()]);
      return { ...presentDetail(detail), languages: available.map((l) => ({ object: 'coding_language' as const, ...l })) };
    },
  });

  app.route({
    method: 'GET', url: '/v1/coding-sessions/:id/timer',
    ...operation({ ...candidate, id: 'getCodingTimer', summary: 'Time left, by the server\'s clock' }, { params: IdParams, response: { 200: Timer } }),
    handler: async (request) => {
      const t = await service.timer(sessionOf(request), request.params.id);
      return {
        object: 'coding_timer' as const, timed: t.timed, remaining_seconds: t.remaining, status: t.row.status,
        deadline_at: toUnixSeconds(t.row.deadline_at), server_time: toUnixSeconds(t.now),
      };
    },
  });

  app.route({
    method: 'POST', url: '/v1/coding-sessions/:id/events',
    ...operation({ ...candidate, id: 'recordCodingEvents', summary: `Proctoring signals (at most ${PROCTORING_EVENTS_CAP} kept per session)` }, {
      params: IdParams,
      body: Type.Object({
        events: Type.Array(Type.Object({
          type: Text({ min: 1, max: 64, pattern: '^[A-Za-z0-9_.:-]+$' }),
          meta: Type.Optional(Type.Record(Type.String({ maxLength: 64 }), Type.Unknown(), { maxProperties: 32 })),
        }, { additionalProperties: false }), { minItems: 1, maxItems: 100 }),
      }, { additionalProperties: false }),
      response: { 202: Type.Object({ object: Type.Literal('proctoring_events'), recorded: Type.Integer() }) },
    }),
    handler: async (request, reply) => {
      const recorded = await service.recordEvents(sessionOf(request), request.params.id, request.body.events);
      return reply.code(202).send({ object: 'proctoring_events' as const, recorded });
    },
  });
}
