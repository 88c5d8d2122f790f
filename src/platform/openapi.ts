import swagger from '@fastify/swagger';
import type { FastifyInstance } from 'fastify';
import { ErrorEnvelope } from './schemas.js';

/**
 * OpenAPI 3.1, generated from the route schemas (so it cannot drift), served as YAML.
 * Routes with `hide: true` in their schema (test and bench helpers) stay out of the document.
 */
export async function registerOpenApi(app: FastifyInstance, publicUrl: string): Promise<void> {
  app.addSchema(ErrorEnvelope);
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Preparation Service API',
        version: '1.0.0',
        description: 'AI mock interviews, resume scoring, coding tests, prompt-engineering and psychometric assessments, and a question bank, through one API.',
      },
      servers: [{ url: publicUrl }],
      components: {
        securitySchemes: {
          secretKey: { type: 'http', scheme: 'bearer', description: 'Secret key: Authorization: Bearer svc_sk_live_… or svc_sk_test_…' },
          secretKeyHeader: { type: 'apiKey', in: 'header', name: 'X-API-KEY', description: 'Secret key in the X-API-KEY header' },
          publishableKey: { type: 'apiKey', in: 'query', name: 'pk', description: 'Publishable key svc_pk_…' },
          sessionToken: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: 'Candidate session token' },
        },
      },
    },
    refResolver: {
      buildLocalReference: (json, _baseUri, _fragment, i) => (typeof json.$id === 'string' ? json.$id : `def-${i}`),
    },
  });
}
