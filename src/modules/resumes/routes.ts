import { Type } from 'typebox';
import type { App } from '../../app-types.js';
import { toUnixSeconds } from '../../platform/clock.js';
import { tenantOf } from '../../platform/context.js';
import { listEnvelope, pageRequest } from '../../platform/pagination.js';
import { operation } from '../../platform/route.js';
import { Deleted, IdParams, ListOf, ListQueryWith, Text, Uuid } from '../../platform/schemas.js';
import type { ResumeSummary } from './repo.js';
import type { ResumeContentType } from './types.js';
import { Resume } from './schemas.js';
import type { ResumeService } from './service.js';

const TAG = 'Resumes';
const MODULE = 'resumes' as const;
/** Bounds on a brief: a role title, and a job description as long as any real one. */
const ROLE_MAX = 200;
const JOB_DESCRIPTION_MAX = 20_000;

export function presentResume(row: ResumeSummary) {
  return {
    object: 'resume' as const,
    id: row.id,
    candidate_id: row.candidate_id,
    livemode: row.livemode === 1,
    created_at: toUnixSeconds(row.created_at),
    file: { content_type: row.content_type as ResumeContentType, size: row.size, pages: row.pages },
    parsed: JSON.parse(row.parsed),
    score: row.score ? JSON.parse(row.score) : null,
  };
}

export function resumeRoutes(app: App, service: ResumeService): void {
  app.route({
    method: 'POST', url: '/v1/resumes/upload-url',
    ...operation({ id: 'createResumeUploadUrl', tag: TAG, summary: 'Get a URL to upload a resume file to', auth: 'secret', module: MODULE, idempotent: true, errors: [404],
      description: 'PUT the file (PDF, DOCX or plain text, at most 10 MiB) to `upload_url` before it expires, then register `key` with POST /v1/resumes.' },
    {
      body: Type.Object({ candidate_id: Uuid, filename: Text({ min: 1, max: 250, pattern: '\\S' }) }, { additionalProperties: false }),
      response: {
        201: Type.Object({ object: Type.Literal('resume_upload'), upload_url: Type.String({ format: 'uri' }), key: Type.String(), expires_in: Type.Integer() }),
      },
    }),
    handler: async (request, reply) => reply.code(201).send(await service.createUploadUrl(tenantOf(request), request.body)),
  });

  app.route({
    method: 'POST', url: '/v1/resumes',
    ...operation({ id: 'createResume', tag: TAG, summary: 'Register an uploaded file as a resume (parsed, not scored)', auth: 'secret', module: MODULE, idempotent: true, errors: [404, 422] },
    {
      body: Type.Object({ candidate_id: Uuid, key: Text({ min: 1, max: 512 }) }, { additionalProperties: false }),
      response: { 201: Resume },
    }),
    handler: async (request, reply) => reply.code(201).send(presentResume(await service.register(tenantOf(request), request.body))),
  });

  app.route({
    method: 'GET', url: '/v1/resumes',
    ...operation({ id: 'listResumes', tag: TAG, summary: 'List resumes, newest first', auth: 'secret', module: MODULE },
      { querystring: ListQueryWith({ candidate_id: Type.Optional(Uuid) }), response: { 200: ListOf(Resume) } }),
    handler: async (request) => listEnvelope(await service.list(tenantOf(request), pageRequest(request.query), request.query.candidate_id), presentResume),
  });

  app.route({
    method: 'GET', url: '/v1/resumes/:id',
    ...operation({ id: 'getResume', tag: TAG, summary: 'Retrieve a resume', auth: 'secret', module: MODULE }, { params: IdParams, response: { 200: Resume } }),
    handler: async (request) => presentResume(await service.get(tenantOf(request), request.params.id)),
  });

  app.route({
    method: 'DELETE', url: '/v1/resumes/:id',
    ...operation({ id: 'deleteResume', tag: TAG, summary: 'Delete a resume record (the stored file stays)', auth: 'secret', module: MODULE },
      { params: IdParams, response: { 200: Deleted('resume') } }),
    handler: async (request) => {
      await service.remove(tenantOf(request), request.params.id);
      return { object: 'resume' as const, id: request.params.id, deleted: true as const };
    },
  });

  app.route({
    method: 'GET', url: '/v1/resumes/:id/file',
    ...operation({ id: 'getResumeFile', tag: TAG, summary: 'A signed, expiring link to the resume file', auth: 'secret', module: MODULE },
    {
      params: IdParams,
      response: {
        200: Type.Object({ object: Type.Literal('resume_file'), url: Type.String({ format: 'uri' }), file_name: Type.Optional(Type.String()), expires_in: Type.Integer() }),
      },
    }),
    handler: async (request) => service.fileLink(tenantOf(request), request.params.id),
  });

  app.route({
    method: 'POST', url: '/v1/resumes/:id/score',
    ...operation({ id: 'scoreResume', tag: TAG, summary: 'Score a resume, standalone or against a brief', auth: 'secret', module: MODULE, rateClass: 'model', errors: [402],
      description: 'One resume credit per scoring; scoring again against an unchanged brief (same role and job description, ignoring case and spacing) returns the stored score and charges nothing. Emits `resume.scored` once per charged scoring.' },
    {
      params: IdParams,
      body: Type.Object({
        role: Type.Optional(Text({ max: ROLE_MAX })),
        job_description: Type.Optional(Text({ max: JOB_DESCRIPTION_MAX })),
      }, { additionalProperties: false }),
      response: { 200: Resume },
    }),
    handler: async (request) => presentResume(await service.score(tenantOf(request), request.params.id, request.body)),
  });
}
