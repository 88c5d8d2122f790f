import fastifyStatic from '@fastify/static';
import { Type } from 'typebox';
import type { App } from '../../app-types.js';
import type { Tenant } from '../../platform/context.js';
import { Text } from '../../platform/schemas.js';
import type { CandidateAccessService } from '../candidate-access/service.js';
import { EMBED_SCRIPT, roomAssetsDir } from './assets.js';
import { LAUNCH_PAGE, launchPageHeaders, NOT_BUILT_PAGE } from './page.js';

/**
 * The hosted candidate room and the embed widget's script, served by the service itself (outside /v1 and the
 * OpenAPI document: pages and assets, not API operations). Assets are revalidated on every load (ETag), so a
 * deploy reaches candidates at once; gzip and brotli copies are made at build time.
 */
export function roomRoutes(app: App, deps: { candidateAccess: CandidateAccessService; branding: (tenant: Tenant) => Promise<unknown>; uploadOrigins?: string[] }): void {
  const dir = roomAssetsDir();
  const assetHeaders = (reply: { header(name: string, value: string): unknown }) => {
    reply.header('cache-control', 'no-cache');
    reply.header('x-content-type-options', 'nosniff');
    // The widget's script is loaded by customers' pages, which may isolate themselves (COEP); its modules and chunks
    // are fetched from those pages in CORS mode (module scripts always are). They are public and carry no cookies.
    reply.header('cross-origin-resource-policy', 'cross-origin');
    reply.header('access-control-allow-origin', '*');
  };
  if (dir) {
    app.register(fastifyStatic, {
      root: dir, prefix: '/room/', preCompressed: true, index: false, cacheControl: false, etag: true, lastModified: true, setHeaders: assetHeaders,
      // Assets only: a folder (`/room/`) would be the plugin's 403, which reads as a malformed request, not a 404.
      allowedPath: (pathname: string) => !pathname.endsWith('/'),
    });
  }

  const pageHeaders = launchPageHeaders(deps.uploadOrigins);
  app.get('/launch', { schema: { hide: true } }, async (_request, reply) => {
    reply.headers(pageHeaders);
    return reply.code(dir ? 200 : 503).send(dir ? LAUNCH_PAGE : NOT_BUILT_PAGE);
  });

  app.get('/embed.js', { schema: { hide: true } }, async (_request, reply) => {
    if (!dir) return reply.code(503).type('text/javascript').send('console.error("Prep: the embed widget has not been built on this server (npm run build).");');
    return reply.sendFile(EMBED_SCRIPT);
  });

  /** What the launch page shows before the click: branding and what the link opens. The link stays unused. */
  app.post('/launch/preview', {
    schema: { hide: true, body: Type.Object({ token: Text({ min: 1, max: 256 }) }, { additionalProperties: false }) },
    config: { auth: 'launch', rateClass: 'standard' }, // limited per client address, like the exchange
  }, async (request) => {
    const { tenant, subjectKind, context } = await deps.candidateAccess.previewLaunch((request.body as { token: string }).token);
    return {
      object: 'launch_preview', subject_kind: subjectKind, title: context.round.name, description: context.round.description,
      duration_seconds: context.duration_seconds, candidate_name: context.candidate?.name ?? null, branding: await deps.branding(tenant),
    };
  });
}
