import { Type, type TObject, type TSchema } from 'typebox';
import type { App } from '../../app-types.js';
import type { SubjectKind } from '../../db/schema.js';
import { toUnixSeconds } from '../../platform/clock.js';
import { sessionTokenOf, tenantOf, type ModuleName } from '../../platform/context.js';
import type { KeyAuth, Tenant } from '../../platform/context.js';
import { listEnvelope, pageRequest, type Page, type PageRequest } from '../../platform/pagination.js';
import { operation } from '../../platform/route.js';
import { IdParams, ListQueryWith, ListWithTotal, Nullable, StringEnum, Text, UnixSeconds, Uuid } from '../../platform/schemas.js';
import { LAUNCH_TTL_DEFAULT, LAUNCH_TTL_MAX, LAUNCH_TTL_MIN } from '../candidate-access/service.js';
import { PROCTORING_EVENTS_CAP, type AssessmentStatus } from './lifecycle.js';

/** The body of every launch-link operation. */
export const LaunchLinkBody = Type.Object({
  ttl_seconds: Type.Optional(Type.Integer({ minimum: LAUNCH_TTL_MIN, maximum: LAUNCH_TTL_MAX, default: LAUNCH_TTL_DEFAULT })),
  redirect_url: Type.Optional(Type.String({ format: 'uri', maxLength: 2048, pattern: '^https?://[^/?#\\s]' })),
}, { additionalProperties: false });

/** A launch link as every launch-link operation answers it (the token is in the URL's fragment, shown only here). */
export function launchLinkSchema(kind: SubjectKind) {
  return Type.Object({
    object: Type.Literal('launch_link'), url: Type.String({ format: 'uri', description: 'Hosted page; the token is in the fragment and shown only here' }),
    expires_at: UnixSeconds, subject_kind: Type.Literal(kind), subject_id: Uuid, redirect_url: Nullable(Type.String({ format: 'uri' })),
  });
}

/** A proctoring signal's name. */
export const ProctoringEventType = Text({ min: 1, max: 64, pattern: '^[A-Za-z0-9_.:-]+$' });

export const AssessmentStatusSchema = StringEnum(['assigned', 'started', 'in_progress', 'completed', 'timed_out', 'cancelled'] as const);

/**
 * The routes of the shared lifecycle, declared once for every kind: list, assign (with `resumed`), cancel,
 * launch-link (secret key) and start (session token). A kind gives its path, names and schemas; its own operations
 * (coding's runs, psychometric answers) it registers itself.
 */
export interface LifecycleRoutesSpec<Row, Detail> {
  path: string;
  tag: string;
  kind: SubjectKind;
  module: ModuleName;
  /** e.g. coding: "Coding sessions, newest first". */
  noun: { one: string; many: string };
  testField: string;
  assignExtra?: Record<string, TSchema>;
  summary: TObject;
  presentSummary(row: Row): unknown;
  assignment: TObject;
  presentAssignment(detail: Detail): unknown;
  started: TObject;
  presentStarted(detail: Detail, tenant: Tenant): Promise<unknown> | unknown;
  service: {
    list(tenant: Tenant, page: PageRequest, filters: { status?: AssessmentStatus; candidateId?: string }): Promise<{ page: Page<Row>; total: number }>;
    assign(tenant: Tenant, input: never): Promise<{ detail: Detail; resumed: boolean }>;
    cancel(tenant: Tenant, id: string): Promise<Row>;
    launchLink(caller: KeyAuth, id: string, options: { ttlSeconds?: number; redirectUrl?: string }): Promise<{ url: string; expiresAt: number; redirectUrl: string | null }>;
    start(tenant: Tenant, id: string): Promise<Detail>;
    timer(tenant: Tenant, id: string): Promise<{ row: { status: AssessmentStatus; deadline_at: number | null }; timed: boolean; remaining: number; now: number }>;
    recordEvents(tenant: Tenant, id: string, events: Array<{ type: string; meta?: Record<string, unknown> }>): Promise<number>;
  };
  /** operationIds, kept as the contract's document had them. */
  ids: { list: string; assign: string; cancel: string; launchLink: string; start: string };
  /** A kind with a clock and proctoring (coding) also gets `GET …/timer` and `POST …/events`. */
  timed?: { timerObject: string; timerId: string; eventsId: string };
}

export function lifecycleRoutes<Row, Detail>(app: App, spec: LifecycleRoutesSpec<Row, Detail>): void {
  const secret = { auth: 'secret' as const, module: spec.module, tag: spec.tag };
  const candidate = { auth: 'session' as const, module: spec.module, subject: spec.kind, tag: spec.tag };
  const LaunchLink = launchLinkSchema(spec.kind);

  app.route({
    method: 'GET', url: spec.path,
    ...operation({ ...secret, id: spec.ids.list, summary: `${spec.noun.many}, newest first` }, {
      querystring: ListQueryWith({ status: Type.Optional(AssessmentStatusSchema), candidate_id: Type.Optional(Uuid) }),
      response: { 200: ListWithTotal(spec.summary) },
    }),
    handler: async (request) => {
      const q = request.query as { status?: AssessmentStatus; candidate_id?: string; limit?: number; starting_after?: string };
      const { page, total } = await spec.service.list(tenantOf(request), pageRequest(q), { status: q.status, candidateId: q.candidate_id });
      return { ...listEnvelope(page, (r) => spec.presentSummary(r)), total_count: total } as never;
    },
  });

  app.route({
    method: 'POST', url: spec.path,
    ...operation({
      ...secret, id: spec.ids.assign, idempotent: true, errors: [402, 404],
      summary: `Assign to a candidate (reserves one ${spec.module.replace('_', ' ')} credit; an open assignment is returned with resumed: true)`,
    }, {
      body: Type.Object({ candidate_id: Uuid, [spec.testField]: Uuid, ...spec.assignExtra }, { additionalProperties: false }),
      response: { 200: spec.assignment, 201: spec.assignment },
    }),
    handler: async (request, reply) => {
      const result = await spec.service.assign(tenantOf(request), request.body as never);
      return reply.code(result.resumed ? 200 : 201).send({ ...(spec.presentAssignment(result.detail) as object), resumed: result.resumed });
    },
  });

  app.route({
    method: 'POST', url: `${spec.path}/:id/cancel`,
    ...operation({ ...secret, id: spec.ids.cancel, summary: 'Cancel before it starts (the credit comes back)' }, { params: IdParams, response: { 200: spec.summary } }),
    handler: async (request) => spec.presentSummary(await spec.service.cancel(tenantOf(request), (request.params as { id: string }).id)) as never,
  });

  app.route({
    method: 'POST', url: `${spec.path}/:id/launch-link`,
    ...operation({ ...secret, id: spec.ids.launchLink, idempotent: true, secretResponse: true, summary: 'A single-use hosted link for the candidate' }, {
      params: IdParams,
      body: LaunchLinkBody,
      response: { 201: LaunchLink },
    }),
    handler: async (request, reply) => {
      const { id } = request.params as { id: string };
      const body = request.body as { ttl_seconds?: number; redirect_url?: string };
      const link = await spec.service.launchLink(tenantOf(request), id, { ttlSeconds: body.ttl_seconds, redirectUrl: body.redirect_url });
      return reply.code(201).send({
        object: 'launch_link' as const, url: link.url, expires_at: toUnixSeconds(link.expiresAt), subject_kind: spec.kind,
        subject_id: id, redirect_url: link.redirectUrl,
      } as never);
    },
  });

  app.route({
    method: 'POST', url: `${spec.path}/:id/start`,
    ...operation({ ...candidate, id: spec.ids.start, summary: 'Start (once; a repeat returns the same started_at)' }, {
      params: IdParams, response: { 200: spec.started },
    }),
    handler: async (request) => spec.presentStarted(await spec.service.start(sessionTokenOf(request), (request.params as { id: string }).id), sessionTokenOf(request)) as never,
  });

  if (!spec.timed) return;
  const { timerObject, timerId, eventsId } = spec.timed;
  app.route({
    method: 'GET', url: `${spec.path}/:id/timer`,
    ...operation({ ...candidate, id: timerId, summary: 'Time left, by the server\'s clock' }, {
      params: IdParams,
      response: {
        200: Type.Object({
          object: Type.Literal(timerObject), timed: Type.Boolean(),
          remaining_seconds: Type.Integer({ description: 'Meaningless (0) when timed is false' }),
          status: AssessmentStatusSchema, deadline_at: Nullable(UnixSeconds), server_time: UnixSeconds,
        }),
      },
    }),
    handler: async (request) => {
      const t = await spec.service.timer(sessionTokenOf(request), (request.params as { id: string }).id);
      return {
        object: timerObject, timed: t.timed, remaining_seconds: t.remaining, status: t.row.status,
        deadline_at: toUnixSeconds(t.row.deadline_at), server_time: toUnixSeconds(t.now),
      } as never;
    },
  });

  app.route({
    method: 'POST', url: `${spec.path}/:id/events`,
    ...operation({ ...candidate, id: eventsId, summary: `Proctoring signals (at most ${PROCTORING_EVENTS_CAP} kept per session)` }, {
      params: IdParams,
      body: Type.Object({
        events: Type.Array(Type.Object({
          type: ProctoringEventType,
          meta: Type.Optional(Type.Record(Type.String({ maxLength: 64 }), Type.Unknown(), { maxProperties: 32 })),
        }, { additionalProperties: false }), { minItems: 1, maxItems: 100 }),
      }, { additionalProperties: false }),
      response: { 202: Type.Object({ object: Type.Literal('proctoring_events'), recorded: Type.Integer() }) },
    }),
    handler: async (request, reply) => {
      const recorded = await spec.service.recordEvents(sessionTokenOf(request), (request.params as { id: string }).id, (request.body as { events: [] }).events);
      return reply.code(202).send({ object: 'proctoring_events' as const, recorded } as never);
    },
  });
}
