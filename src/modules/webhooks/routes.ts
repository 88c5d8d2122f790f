import { Type } from 'typebox';
import type { App } from '../../app-types.js';
import type { EventsTable, WebhookAttemptsTable, WebhookEndpointsTable } from '../../db/schema.js';
import { toUnixSeconds } from '../../platform/clock.js';
import { tenantOf } from '../../platform/context.js';
import { ApiError } from '../../platform/errors.js';
import { listEnvelope, pageRequest } from '../../platform/pagination.js';
import { operation } from '../../platform/route.js';
import { Deleted, HttpsUrl, IdParams, ListOf, ListQuery, ListQueryWith, Nullable, PAGE_LIMIT_DEFAULT, StringEnum, Text, UnixSeconds, Uuid } from '../../platform/schemas.js';
import type { WebhookService } from './service.js';
import { SUBJECT_KIND_NAMES, SUBJECT_KINDS } from '../../platform/kinds.js';

export const EVENT_TYPES = [
  'interview.created', 'interview.started', 'interview.ended', 'interview.cancelled', 'interview.summary_available', 'interview.transcript_available',
  'resume.scored', ...SUBJECT_KIND_NAMES.map((kind) => SUBJECT_KINDS[kind].completedEvent), 'webhook.test',
] as const;

const EventType = StringEnum(EVENT_TYPES);
const EnabledEvents = Type.Array(EventType, { maxItems: EVENT_TYPES.length, description: 'Empty: every event' });

const Endpoint = Type.Object({
  object: Type.Literal('webhook_endpoint'), id: Uuid, livemode: Type.Boolean(), url: Type.String(), description: Type.String({ description: 'Empty when none was given (the contract types it a string)' }),
  enabled_events: Type.Array(Type.String()), disabled: Type.Boolean(), created_at: UnixSeconds, updated_at: UnixSeconds,
});
const EndpointWithSecret = Type.Object({ ...Endpoint.properties, secret: Type.String({ description: 'whsec_…, shown once; the whole string is the HMAC key' }) });

const Event = Type.Object({
  object: Type.Literal('event'), id: Type.String(), type: Type.String(), livemode: Type.Boolean(),
  status: StringEnum(['pending', 'delivered', 'failed'] as const), created_at: UnixSeconds,
  payload: Type.String({ description: 'The exact body signed and sent' }),
});

const Delivery = Type.Object({
  object: Type.Literal('webhook_delivery'), id: Uuid, event_id: Type.String(), status_code: Nullable(Type.Integer()),
  response_body: Nullable(Type.String({ description: 'First 2 KiB' })), response_time_ms: Nullable(Type.Integer()),
  error: Nullable(Type.String()), succeeded: Type.Boolean(), created_at: UnixSeconds,
});

const EventParams = Type.Object({ id: Text({ min: 1, max: 64, pattern: '^whevt_[0-9A-Za-z]+$' }) }, { additionalProperties: false });
const TAG = 'Webhooks';

function presentEndpoint(r: WebhookEndpointsTable) {
  return {
    object: 'webhook_endpoint' as const, id: r.id, livemode: r.livemode === 1, url: r.url, description: r.description ?? '',
    enabled_events: JSON.parse(r.enabled_events) as string[], disabled: r.disabled === 1,
    created_at: toUnixSeconds(r.created_at), updated_at: toUnixSeconds(r.updated_at),
  };
}

function presentEvent(e: EventsTable) {
  return { object: 'event' as const, id: e.id, type: e.type, livemode: e.livemode === 1, status: e.status, created_at: toUnixSeconds(e.created_at), payload: e.payload };
}

function presentAttempt(a: WebhookAttemptsTable) {
  return {
    object: 'webhook_delivery' as const, id: a.id, event_id: a.event_id, status_code: a.status_code, response_body: a.response_body,
    response_time_ms: a.response_ms, error: a.error, succeeded: a.succeeded === 1, created_at: toUnixSeconds(a.created_at),
  };
}

export function webhookRoutes(app: App, service: WebhookService): void {
  const secret = { auth: 'secret' as const, tag: TAG };

  app.route({
    method: 'POST', url: '/v1/webhook-endpoints',
    ...operation({ ...secret, id: 'createWebhookEndpoint', idempotent: true, secretResponse: true, summary: 'Register an https endpoint (its secret is shown once)' }, {
      body: Type.Object({ url: HttpsUrl, description: Type.Optional(Text({ max: 500 })), enabled_events: Type.Optional(EnabledEvents) }, { additionalProperties: false }),
      response: { 201: EndpointWithSecret },
    }),
    handler: async (request, reply) => {
      const { row, secret: s } = await service.createEndpoint(tenantOf(request), request.body);
      return reply.code(201).send({ ...presentEndpoint(row), secret: s });
    },
  });

  app.route({
    method: 'GET', url: '/v1/webhook-endpoints',
    ...operation({ ...secret, id: 'listWebhookEndpoints', summary: 'Endpoints of this environment' }, { querystring: ListQuery, response: { 200: ListOf(Endpoint) } }),
    handler: async (request) => listEnvelope(await service.listEndpoints(tenantOf(request), pageRequest(request.query)), presentEndpoint),
  });

  app.route({
    method: 'GET', url: '/v1/webhook-endpoints/:id',
    ...operation({ ...secret, id: 'getWebhookEndpoint', summary: 'An endpoint' }, { params: IdParams, response: { 200: Endpoint } }),
    handler: async (request) => presentEndpoint(await service.getEndpoint(tenantOf(request), request.params.id)),
  });

  app.route({
    method: 'PATCH', url: '/v1/webhook-endpoints/:id',
    ...operation({ ...secret, id: 'updateWebhookEndpoint', summary: 'Replace the event filter, park or resume' }, {
      params: IdParams,
      body: Type.Object({ enabled_events: Type.Optional(EnabledEvents), disabled: Type.Optional(Type.Boolean()), description: Type.Optional(Nullable(Text({ max: 500 }))) }, { additionalProperties: false }),
      response: { 200: Endpoint },
    }),
    handler: async (request) => {
      if (Object.keys(request.body).length === 0) throw new ApiError('parameter_missing', { param: 'enabled_events', message: 'Give enabled_events, disabled or description.' });
      return presentEndpoint(await service.updateEndpoint(tenantOf(request), request.params.id, request.body));
    },
  });

  app.route({
    method: 'DELETE', url: '/v1/webhook-endpoints/:id',
    ...operation({ ...secret, id: 'deleteWebhookEndpoint', summary: 'Delete an endpoint' }, { params: IdParams, response: { 200: Deleted('webhook_endpoint') } }),
    handler: async (request) => {
      await service.deleteEndpoint(tenantOf(request), request.params.id);
      return { object: 'webhook_endpoint' as const, id: request.params.id, deleted: true as const };
    },
  });

  app.route({
    method: 'POST', url: '/v1/webhook-endpoints/:id/test',
    ...operation({ ...secret, id: 'testWebhookEndpoint', summary: 'Send a webhook.test event (attempted once)' }, { params: IdParams, response: { 202: Event } }),
    handler: async (request, reply) => reply.code(202).send(presentEvent(await service.sendTest(tenantOf(request), request.params.id))),
  });

  app.route({
    method: 'GET', url: '/v1/webhook-endpoints/:id/deliveries',
    ...operation({ ...secret, id: 'listWebhookDeliveries', summary: 'Delivery attempts, newest first' }, { params: IdParams, querystring: ListQuery, response: { 200: ListOf(Delivery) } }),
    handler: async (request) => {
      const endpoint = await service.getEndpoint(tenantOf(request), request.params.id);
      return listEnvelope(await service.deliveries(endpoint.id, pageRequest(request.query)), presentAttempt);
    },
  });

  app.route({
    method: 'POST', url: '/v1/webhook-endpoints/:id/rotate-secret',
    ...operation({ ...secret, id: 'rotateWebhookSecret', secretResponse: true, summary: 'A new secret (once); the old one also signs for 24 hours' }, {
      params: IdParams, response: { 200: EndpointWithSecret },
    }),
    handler: async (request) => {
      const { row, secret: s } = await service.rotateSecret(tenantOf(request), request.params.id);
      return { ...presentEndpoint(row), secret: s };
    },
  });

  app.route({
    method: 'GET', url: '/v1/events',
    ...operation({ ...secret, id: 'listEvents', summary: 'Events, newest first' }, {
      querystring: ListQueryWith({ status: Type.Optional(StringEnum(['pending', 'delivered', 'failed'] as const)) }),
      response: { 200: ListOf(Event) },
    }),
    handler: async (request) => {
      const { limit, starting_after, status } = request.query;
      if (starting_after !== undefined && !/^whevt_[0-9A-Za-z]+$/.test(starting_after)) throw new ApiError('invalid_cursor', { param: 'starting_after' });
      const page = await service.listEvents(tenantOf(request), limit ?? PAGE_LIMIT_DEFAULT, starting_after ?? null, status);
      if (!page) throw new ApiError('invalid_cursor', { param: 'starting_after' });
      return listEnvelope(page, presentEvent);
    },
  });

  app.route({
    method: 'GET', url: '/v1/events/:id',
    ...operation({ ...secret, id: 'getEvent', summary: 'An event with the exact payload sent' }, { params: EventParams, response: { 200: Event } }),
    handler: async (request) => presentEvent(await service.getEvent(tenantOf(request), request.params.id)),
  });

  app.route({
    method: 'POST', url: '/v1/events/:id/redeliver',
    ...operation({ ...secret, id: 'redeliverEvent', summary: 'Send a failed event again (same id, fresh attempts)' }, { params: EventParams, response: { 200: Event } }),
    handler: async (request) => presentEvent(await service.redeliver(tenantOf(request), request.params.id)),
  });
}
