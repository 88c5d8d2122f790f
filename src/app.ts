import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { isUtf8 } from 'node:buffer';
import Fastify, { LogController, type FastifyServerOptions } from 'fastify';
import { Redis } from 'ioredis';
import type { App } from './app-types.js';
import type { Config } from './config.js';
import type { Db } from './db/database.js';
import websocket from '@fastify/websocket';
import { createModuleServices, registerModules, type ModuleServices } from './modules/index.js';
import { registerAuth } from './platform/auth.js';
import { createAuthFailureLimiter } from './platform/auth-failures.js';
import { systemClock, type Clock } from './platform/clock.js';
import { registerCors } from './platform/cors.js';
import { clientErrorHandler, registerErrorHandling, sendError } from './platform/error-handler.js';
import { ApiError } from './platform/errors.js';
import { newRequestId } from './platform/ids.js';
import { registerIdempotency } from './platform/idempotency.js';
import { registerOpenApi } from './platform/openapi.js';
import { registerRateLimit } from './platform/rate-limit.js';
import { unstorableValue, validatorFactory } from './platform/validation.js';
import { createServices, type Services } from './services.js';

export interface BuildOptions {
  config: Config;
  db: Db;
  clock?: Clock;
  logger?: FastifyServerOptions['logger'];
  /** Called before the app is sealed: tests and benchmarks add their own routes here. */
  extend?: (app: App, services: Services, modules: ModuleServices) => void | Promise<void>;
}

/** The whole HTTP service, ready to listen or to `inject`; it does not listen itself. */
export async function buildApp(options: BuildOptions): Promise<{ app: App; services: Services; modules: ModuleServices }> {
  const { config, db } = options;
  const clock = options.clock ?? systemClock;
  const app = Fastify({
    logger: options.logger ?? { level: config.logLevel },
    genReqId: () => newRequestId(),
    requestIdHeader: false, // an incoming Request-Id is never taken as ours
    // One log line per request, written on response (below), labelled request_id.
    logController: new LogController({ disableRequestLogging: true, requestIdLogLabel: 'request_id' }),
    bodyLimit: config.bodyLimitBytes,
    // A URL the router cannot decode, or a path segment past its limit, still answers in the envelope.
    frameworkErrors: (error, request, reply) => {
      reply.header('Request-Id', request.id);
      const message = error.code === 'FST_ERR_MAX_PARAM_LENGTH' ? 'A path parameter is too long.' : 'The request URL is malformed.';
      return sendError(request, reply, new ApiError('parameter_invalid', { message }), config.publicUrl);
    },
    // X-Forwarded-For is believed from the configured proxies only (request.ip keys the per-address limits).
    trustProxy: config.trustProxy.length > 0 ? config.trustProxy : false,
    clientErrorHandler: clientErrorHandler(config.publicUrl),
    // A missing Host is answered by the app (below) in the envelope, rather than by Node with an empty 400.
    http: { requireHostHeader: false },
    schemaController: { compilersFactory: { buildValidator: validatorFactory() as never } },
  }).withTypeProvider<TypeBoxTypeProvider>();

  const services = createServices(db, config, clock);
  const modules = createModuleServices(services);
  // While Redis is unreachable each command fails at once, and the limits it counts are not applied (protection, not
  // correctness), rather than waiting in ioredis's queue for a reconnect (every request took ~27 s). The outage is
  // logged once, not printed as an unhandled error on every reconnect attempt.
  const redis = config.redisUrl ? new Redis(config.redisUrl, { lazyConnect: false, maxRetriesPerRequest: 2, enableOfflineQueue: false }) : null;
  if (redis) {
    let down = false;
    redis.on('error', (error) => {
      if (down) return;
      down = true;
      app.log.error({ err: error }, 'Redis (REDIS_URL) is unreachable: rate limits are not applied until it is back');
    });
    redis.on('ready', () => {
      if (down) app.log.warn('Redis (REDIS_URL) is reachable again');
      down = false;
    });
    app.addHook('onClose', async () => void redis.disconnect());
    // The first connection (or its failure) is waited for: with no queue, requests before it would pass uncounted.
    await new Promise<void>((resolve) => {
      const settled = () => {
        redis.off('ready', settled).off('error', settled);
        resolve();
      };
      redis.once('ready', settled).once('error', settled);
    });
  }
  app.addHook('onClose', modules.close);

  app.addHook('onRequest', async (request, reply) => {
    db.freshen(); // the request's cached reads follow every commit made before it arrived
    reply.header('Request-Id', request.id);
    if (request.raw.httpVersion === '1.1' && request.headers.host === undefined) {
      throw new ApiError('malformed_request', { param: 'Host', message: 'HTTP/1.1 requests must carry a Host header.' });
    }
  });
  // Every answer is what its Content-Type says (JSON, mostly), 404s included: never sniffed as something a browser runs.
  app.addHook('onSend', async (_request, reply) => void reply.header('X-Content-Type-Options', 'nosniff'));
  app.addHook('onResponse', async (request, reply) => {
    request.log.info({
      method: request.method, url: request.url.split('?')[0], route: request.routeOptions.url, status: reply.statusCode,
      ms: Math.round(reply.elapsedTime * 10) / 10, key_id: request.auth?.keyId,
    }, 'request');
  });
  // Bodies are JSON only: anything else answers 400 unsupported_media_type.
  app.removeContentTypeParser('text/plain');
  // A body-less POST sent with Content-Type: application/json (many HTTP libraries always set it) has no body, not
  // malformed JSON; anything else is Fastify's own parser (prototype poisoning refused). JSON is UTF-8 (RFC 8259):
  // bytes that are not are refused, not decoded to U+FFFD and stored as something the client never sent.
  const json = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request, body, done) => {
    const bytes = body as Buffer;
    if (bytes.length === 0) return done(null, undefined);
    if (!isUtf8(bytes)) return done(new ApiError('invalid_json', { message: 'The request body is not valid UTF-8.' }), undefined);
    return json(request, bytes.toString('utf8'), done);
  });
  // An operation that takes a body accepts no body at all as an empty object (attached only where a body schema is).
  const emptyBody = (request: { body: unknown }, _reply: unknown, done: () => void) => {
    if (request.body === undefined) request.body = {};
    done();
  };
  // An operation that takes no body refuses one with fields (or one that is not an object), as an operation with a
  // body refuses unknown fields: `{}` and no body at all are accepted.
  const noBody = (request: { body: unknown }, _reply: unknown, done: (error?: Error) => void) => {
    const body = request.body;
    if (body === undefined || (body !== null && typeof body === 'object' && !Array.isArray(body) && Object.keys(body).length === 0)) return done();
    if (body === null || typeof body !== 'object' || Array.isArray(body)) {
      return done(new ApiError('parameter_invalid', { message: 'This operation takes no request body; send none, or {}.' }));
    }
    const param = Object.keys(body)[0]!;
    return done(new ApiError('parameter_unknown', { param, message: `Received unknown parameter: ${param}. This operation takes no request body.` }));
  };
  app.addHook('onRoute', (route) => {
    if (route.schema?.body) route.preValidation = [...[route.preValidation ?? []].flat(), emptyBody];
    else if ((route.config as { auth?: string } | undefined)?.auth !== undefined) route.preValidation = [...[route.preValidation ?? []].flat(), noBody];
  });
  app.addHook('preHandler', async (request) => {
    const refused = unstorableValue([['', request.params], ['', request.query], ['', request.body]]);
    if (refused) throw refused;
  });

  // Before any route: the interview channel's upgrade is answered by its route, every other route refuses one.
  await app.register(websocket, { options: { maxPayload: 64 * 1024 } });
  registerErrorHandling(app, config.publicUrl);
  await registerOpenApi(app, config.publicUrl);
  await registerCors(app, {
    publicOrigin: config.publicUrl, isAllowlisted: modules.domainRepo.isAllowlistedAnywhere, hasLiveSession: modules.candidateAccess.originInUse,
    allowlistChanges: modules.domainRepo.allowlistChanges,
  });
  const { authenticateSession } = registerAuth(app, {
    resolveSecretKey: services.apiKeys.resolveSecretKey,
    resolvePublishableKey: services.apiKeys.resolvePublishableKey,
    resolveSessionToken: modules.candidateAccess.resolve,
    isModuleEnabled: services.organizationRepo.isModuleEnabled,
    publicOrigin: config.publicUrl,
    failures: createAuthFailureLimiter({ limit: config.authFailureLimit, windowMs: config.rateLimit.windowMs, clock }, redis),
  });
  await registerRateLimit(app, config.rateLimit, redis);
  registerIdempotency(app, { db: db.kysely, clock, encryption: services.encryption });

  registerModules(app, services, modules, { authenticateSession });
  if (options.extend) await options.extend(app, services, modules);
  await app.ready();
  return { app, services, modules };
}
