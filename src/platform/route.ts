import type { FastifySchema } from 'fastify';
import { Type, type Static, type TSchema } from 'typebox';
import type { App } from '../app-types.js';
import type { SubjectKind } from '../db/schema.js';
import { tenantOf, type AuthKind, type KeyAuth, type ModuleName, type RateClass } from './context.js';
import { listEnvelope, pageRequest, type Page, type PageRequest } from './pagination.js';
import { ListOf, ListQuery } from './schemas.js';

interface OperationMeta {
  /** OpenAPI operationId. */
  id: string;
  tag: string;
  summary: string;
  auth: AuthKind;
  module?: ModuleName;
  /** A create: takes Idempotency-Key, may answer 409. */
  idempotent?: boolean;
  /** The response carries a secret shown once (stored encrypted for idempotent replays). */
  secretResponse?: boolean;
  rateClass?: RateClass;
  /** Session routes: the subject kind the token must be bound to (and the route's :id must be it). */
  subject?: SubjectKind;
  /** Statuses this operation can answer beyond the ones its auth and inputs imply. */
  errors?: number[];
  description?: string;
}

const SECURITY: Record<AuthKind, Array<Record<string, string[]>>> = {
  none: [],
  secret: [{ secretKey: [] }, { secretKeyHeader: [] }],
  publishable: [{ publishableKey: [] }],
  session: [{ sessionToken: [] }],
  launch: [], // the launch token travels in the body
};

const ERROR_REF = { $ref: 'Error#' };
const NO_QUERY = Type.Object({}, { additionalProperties: false });

/**
 * The one way to describe an operation: its schemas plus the metadata the platform hooks
 * (auth, module gate, idempotency, rate class) and the OpenAPI document read.
 * Error responses are derived here so every route documents them the same way.
 */
export function operation<S extends FastifySchema & { response: Record<number, unknown> }>(meta: OperationMeta, schema: S) {
  const statuses = new Set<number>(meta.errors ?? []);
  if (meta.auth !== 'none') statuses.add(401).add(429);
  if (meta.auth === 'secret' || meta.auth === 'session') statuses.add(403);
  statuses.add(400); // every operation validates its query at least (below)
  if (schema.params) statuses.add(404);
  if (meta.idempotent) statuses.add(409);
  statuses.add(500);
  const errorResponses = Object.fromEntries([...statuses].sort().map((s) => [s, ERROR_REF]));
  return {
    schema: {
      ...schema,
      // An operation without query parameters takes none: an unknown one is refused (parameter_unknown), not ignored.
      ...(schema.querystring ? {} : ({ querystring: NO_QUERY } as object)),
      operationId: meta.id,
      tags: [meta.tag],
      summary: meta.summary,
      ...(meta.description ? { description: meta.description } : {}),
      security: SECURITY[meta.auth],
      ...(meta.idempotent
        ? {
            headers: {
              type: 'object',
              properties: { 'idempotency-key': { type: 'string', minLength: 1, maxLength: 255, description: 'Makes a retried create safe' } },
            },
          }
        : {}),
      response: { ...schema.response, ...errorResponses } as S['response'],
    },
    config: {
      auth: meta.auth, module: meta.module, subject: meta.subject, idempotent: meta.idempotent ?? false,
      secretResponse: meta.secretResponse ?? false, rateClass: meta.rateClass ?? 'standard',
    },
  };
}

/**
 * The common shape of a plain list operation (secret key, `limit` + `starting_after`, newest first):
 * one declaration instead of the same route written out per resource.
 */
export function keysetListRoute<I extends TSchema, R>(app: App, spec: {
  url: string; id: string; tag: string; summary: string; item: I; module?: ModuleName;
  list: (tenant: KeyAuth, page: PageRequest) => Promise<Page<R>>;
  present: (row: R) => Static<I>;
}): void {
  app.route({
    method: 'GET', url: spec.url,
    ...operation({ id: spec.id, tag: spec.tag, summary: spec.summary, auth: 'secret', module: spec.module },
      { querystring: ListQuery, response: { 200: ListOf(spec.item) } }),
    handler: async (request) => listEnvelope(await spec.list(tenantOf(request), pageRequest(request.query as { limit: number })), spec.present) as never,
  });
}
