import { Type } from 'typebox';
import type { App } from '../../app-types.js';
import { toUnixSeconds } from '../../platform/clock.js';
import { sessionTokenOf, tenantOf } from '../../platform/context.js';
import { operation } from '../../platform/route.js';
import { Nullable, StringEnum, Text, UnixSeconds, Uuid } from '../../platform/schemas.js';
import { Branding } from '../branding/routes.js';
import { JWKS_MAX_AGE_SECONDS, type SigningKeys } from '../signing-keys/service.js';
import type { IssuedSessionToken, CandidateAccessService } from './service.js';
import { SUBJECT_FIELDS } from './subjects.js';
import { SUBJECT_KIND_NAMES } from '../../platform/kinds.js';

const SubjectKindSchema = StringEnum(SUBJECT_KIND_NAMES);

const Session = Type.Object({
  object: Type.Literal('session'),
  session_token: Type.String({ description: 'EdDSA JWT; send as Authorization: Bearer' }),
  expires_at: UnixSeconds,
  refresh_after: UnixSeconds,
  jti: Uuid,
  subject_kind: SubjectKindSchema,
  subject_id: Uuid,
});

const ExchangedSession = Type.Object({ ...Session.properties, redirect_url: Nullable(Type.String({ format: 'uri' })) });

const SessionContext = Type.Object({
  object: Type.Literal('session_context'),
  subject_kind: SubjectKindSchema,
  subject_id: Uuid,
  livemode: Type.Boolean(),
  origin: Type.String(),
  expires_at: UnixSeconds,
  status: Type.String(),
  candidate: Nullable(Type.Object({ id: Uuid, name: Type.String() })),
  round: Type.Object({ id: Uuid, name: Type.String(), description: Nullable(Type.String()) }),
  duration_seconds: Nullable(Type.Integer()),
  branding: Branding,
});

const Jwks = Type.Object({
  keys: Type.Array(Type.Object({
    kty: Type.Literal('OKP'), crv: Type.Literal('Ed25519'), x: Type.String(), kid: Type.String(), alg: Type.Literal('EdDSA'), use: Type.Literal('sig'),
  })),
});

const TAG = 'Sessions and embedding';

export function presentSessionToken(s: IssuedSessionToken) {
  return {
    object: 'session' as const, session_token: s.token, expires_at: toUnixSeconds(s.expiresAt), refresh_after: toUnixSeconds(s.refreshAfter),
    jti: s.jti, subject_kind: s.subjectKind, subject_id: s.subjectId,
  };
}

export function candidateAccessRoutes(app: App, deps: { candidateAccess: CandidateAccessService; signingKeys: SigningKeys; branding: (tenant: { organizationId: string; livemode: boolean }) => Promise<unknown> }): void {
  const { candidateAccess, signingKeys } = deps;

  app.route({
    method: 'GET', url: '/v1/.well-known/jwks.json',
    ...operation({ id: 'getJwks', tag: TAG, summary: 'Public keys that can verify a session token still valid', auth: 'none' },
      { response: { 200: Jwks } }),
    handler: async (_request, reply) => {
      reply.header('Cache-Control', `public, max-age=${JWKS_MAX_AGE_SECONDS}`); // a rotated-in key is published that long before it signs
      return signingKeys.jwks();
    },
  });

  app.route({
    method: 'POST', url: '/v1/sessions',
    ...operation({
      id: 'createSession', tag: TAG, auth: 'secret', idempotent: true, secretResponse: true, errors: [404],
      summary: 'Mint a 15-minute session token bound to one subject and one allowlisted origin',
    }, {
      body: Type.Object({
        origin: Text({ min: 1, max: 2048, description: 'scheme://host[:port]; longer than 255 characters is invalid_origin' }),
        ...Object.fromEntries(Object.values(SUBJECT_FIELDS).map((field) => [field, Type.Optional(Uuid)])),
      }, { additionalProperties: false }),
      response: { 201: Session },
    }),
    handler: async (request, reply) => reply.code(201).send(presentSessionToken(await candidateAccess.mint(tenantOf(request), request.body as { origin: string }))),
  });

  app.route({
    method: 'POST', url: '/v1/sessions/refresh',
    ...operation({ id: 'refreshSession', tag: TAG, summary: 'A new token with the same binding (call at refresh_after)', auth: 'session', errors: [400] },
      { response: { 201: Session } }),
    handler: async (request, reply) => reply.code(201).send(presentSessionToken(await candidateAccess.refresh(sessionTokenOf(request)))),
  });

  app.route({
    method: 'DELETE', url: '/v1/sessions/:jti',
    ...operation({ id: 'revokeSession', tag: TAG, summary: 'Revoke a session token at once', auth: 'secret' },
      {
        params: Type.Object({ jti: Uuid }, { additionalProperties: false }),
        response: { 200: Type.Object({ object: Type.Literal('session'), jti: Uuid, revoked: Type.Literal(true) }) },
      }),
    handler: async (request) => {
      const jti = request.params.jti.toLowerCase();
      await candidateAccess.revoke(tenantOf(request), jti);
      return { object: 'session' as const, jti, revoked: true as const };
    },
  });

  app.route({
    method: 'GET', url: '/v1/session',
    ...operation({ id: 'getSessionContext', tag: TAG, summary: 'Who and what the session is for, with branding (not billable)', auth: 'session', errors: [404] },
      { response: { 200: SessionContext } }),
    handler: async (request) => {
      const session = sessionTokenOf(request);
      const [ctx, branding] = await Promise.all([candidateAccess.context(session), deps.branding(session)]);
      return {
        object: 'session_context' as const, subject_kind: session.subjectKind, subject_id: session.subjectId, livemode: session.livemode,
        origin: session.origin, expires_at: toUnixSeconds(session.expiresAt), ...ctx, branding: branding as never,
      };
    },
  });

  app.route({
    method: 'POST', url: '/v1/launch/exchange',
    ...operation({ id: 'exchangeLaunchToken', tag: TAG, summary: 'Redeem a launch link (once, on a user click)', auth: 'launch', errors: [401, 403] },
      { body: Type.Object({ token: Text({ min: 1, max: 256 }) }, { additionalProperties: false }), response: { 201: ExchangedSession } }),
    handler: async (request, reply) => {
      const s = await candidateAccess.exchange(request.body.token);
      return reply.code(201).send({ ...presentSessionToken(s), redirect_url: s.redirectUrl });
    },
  });
}

