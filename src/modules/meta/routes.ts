import { readFile } from 'node:fs/promises';
import { sql } from 'kysely';
import { Type } from 'typebox';
import type { App } from '../../app-types.js';
import type { Db } from '../../db/database.js';
import { ApiError } from '../../platform/errors.js';
import { operation } from '../../platform/route.js';

const TAG = 'Meta';

/** Health, the OpenAPI document, and the error reference that every error's doc_url points at. */
export function metaRoutes(app: App, db: Db): void {
  app.route({
    method: 'GET', url: '/v1/health',
    ...operation({ id: 'getHealth', tag: TAG, summary: 'Liveness and database reachability', auth: 'none', errors: [503] },
      { response: { 200: Type.Object({ object: Type.Literal('health'), status: Type.Literal('ok') }) } }),
    handler: async () => {
      try {
        await sql`select 1`.execute(db.kysely);
      } catch {
        throw new ApiError('service_unavailable', { message: 'The database is not reachable.' });
      }
      return { object: 'health' as const, status: 'ok' as const };
    },
  });

  let yaml: string | null = null;
  app.route({
    method: 'GET', url: '/v1/openapi.yaml',
    ...operation({ id: 'getOpenApi', tag: TAG, summary: 'This OpenAPI 3.1 document', auth: 'none' },
      { response: { 200: { description: 'OpenAPI 3.1 YAML', content: { 'application/yaml': { schema: Type.String() } } } } }),
    handler: async (_request, reply) => {
      yaml ??= app.swagger({ yaml: true });
      return reply.type('application/yaml; charset=utf-8').send(yaml);
    },
  });

  let errorsDoc: string | null = null;
  app.get('/docs/errors', { schema: { hide: true }, config: { auth: 'none' } }, async (_request, reply) => {
    errorsDoc ??= await readFile(new URL('../../../docs/errors.md', import.meta.url), 'utf8');
    return reply.type('text/markdown; charset=utf-8').send(errorsDoc);
  });
}
