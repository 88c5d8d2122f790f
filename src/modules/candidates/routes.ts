import { Type } from 'typebox';
import type { App } from '../../app-types.js';
import { tenantOf } from '../../platform/context.js';
import { ApiError } from '../../platform/errors.js';
import { listEnvelope, pageRequest } from '../../platform/pagination.js';
import { operation } from '../../platform/route.js';
import { Deleted, Email, IdParams, ListOf, ListQueryWith, PersonName, UnixSeconds, Uuid } from '../../platform/schemas.js';
import type { Core } from '../../services.js';
import { createOrganizationRepo } from '../organizations/repo.js';
import { createCandidateRepo } from './repo.js';
import { createCandidateService, presentCandidate, type CandidateEraser } from './service.js';

const Candidate = Type.Object({
  object: Type.Literal('candidate'),
  id: Uuid,
  email: Type.String({ format: 'email' }),
  name: Type.String(),
  livemode: Type.Boolean(),
  created_at: UnixSeconds,
  updated_at: UnixSeconds,
});

const TAG = 'Candidates';

export function candidateRoutes(app: App, core: Core, erasers: CandidateEraser[] = []): void {
  const service = createCandidateService({
    db: core.db.kysely, clock: core.clock, repo: createCandidateRepo(core.db),
    organizations: createOrganizationRepo(core.db), erasers,
  });

  app.route({
    method: 'GET', url: '/v1/candidates',
    ...operation({ id: 'listCandidates', tag: TAG, summary: 'List candidates, newest first', auth: 'secret' },
      { querystring: ListQueryWith({ email: Type.Optional(Type.String({ maxLength: 254, description: 'Exact (case-insensitive) address' })) }), response: { 200: ListOf(Candidate) } }),
    handler: async (request) => {
      const page = await service.list(tenantOf(request), pageRequest(request.query), request.query.email);
      return listEnvelope(page, presentCandidate);
    },
  });

  app.route({
    method: 'POST', url: '/v1/candidates',
    ...operation({ id: 'createCandidate', tag: TAG, summary: 'Create a candidate', auth: 'secret', idempotent: true },
      { body: Type.Object({ email: Email, name: PersonName }, { additionalProperties: false }), response: { 201: Candidate } }),
    handler: async (request, reply) => reply.code(201).send(presentCandidate(await service.create(tenantOf(request), request.body))),
  });

  app.route({
    method: 'GET', url: '/v1/candidates/:id',
    ...operation({ id: 'getCandidate', tag: TAG, summary: 'Retrieve a candidate', auth: 'secret' },
      { params: IdParams, response: { 200: Candidate } }),
    handler: async (request) => presentCandidate(await service.get(tenantOf(request), request.params.id)),
  });

  app.route({
    method: 'PATCH', url: '/v1/candidates/:id',
    ...operation({ id: 'updateCandidate', tag: TAG, summary: 'Correct a candidate\'s email or name', auth: 'secret' },
      {
        params: IdParams,
        body: Type.Object({ email: Type.Optional(Email), name: Type.Optional(PersonName) }, { additionalProperties: false }),
        response: { 200: Candidate },
      }),
    handler: async (request) => {
      if (request.body.email === undefined && request.body.name === undefined) {
        throw new ApiError('parameter_missing', { message: 'Give email, name, or both.', param: 'email' });
      }
      return presentCandidate(await service.update(tenantOf(request), request.params.id, request.body));
    },
  });

  app.route({
    method: 'DELETE', url: '/v1/candidates/:id',
    ...operation({ id: 'deleteCandidate', tag: TAG, summary: 'Erase a candidate and their personal data', auth: 'secret' },
      { params: IdParams, response: { 200: Deleted('candidate') } }),
    handler: async (request) => {
      await service.erase(tenantOf(request), request.params.id);
      return { object: 'candidate' as const, id: request.params.id, deleted: true as const };
    },
  });
}
