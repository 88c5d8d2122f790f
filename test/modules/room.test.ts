import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { roomAssetsDir } from '../../src/modules/room/assets.js';
import { bearer, startHarness, type Harness } from '../helpers/harness.js';

let h: Harness;

const secret = () => bearer(h.org.keys.secret_test);

async function assignedSessionWithLink() {
  const test = (await h.app.inject({ method: 'GET', url: '/v1/coding-tests?limit=100', headers: secret() })).json().data.find((t: any) => t.duration_minutes);
  const candidate = (await h.app.inject({
    method: 'POST', url: '/v1/candidates', headers: secret(), payload: { email: `room.${Date.now().toString(36)}.${Math.random().toString(36).slice(2)}@example.com`, name: 'Grace Hopper' },
  })).json();
  const session = (await h.app.inject({ method: 'POST', url: '/v1/coding-sessions', headers: secret(), payload: { candidate_id: candidate.id, coding_test_id: test.id } })).json();
  const link = (await h.app.inject({ method: 'POST', url: `/v1/coding-sessions/${session.id}/launch-link`, headers: secret(), payload: {} })).json();
  return { session, test, token: new URL(link.url).hash.slice('#token='.length) };
}

const preview = (payload: unknown) => h.app.inject({ method: 'POST', url: '/launch/preview', payload: payload as object });

beforeAll(async () => {
  h = await startHarness();
  await h.app.inject({ method: 'PATCH', url: '/v1/branding', headers: secret(), payload: { company_name: 'Acme Robotics', primary_color: '#0f766e' } });
});
afterAll(() => h.close());

describe('the hosted launch page', () => {
  it('is a shell that loads the room, with a strict CSP, never cached, never framed', async () => {
    const res = await h.app.inject({ method: 'GET', url: '/launch' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.body).toContain('<div id="prep-launch">');
    expect(res.body).toContain('<script type="module" src="/room/launch.js"></script>');
    const csp = String(res.headers['content-security-policy']);
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("connect-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toMatch(/script-src[^;]*unsafe/);
    // Hardening from a review: no string may become HTML or script in the room (it never needs one).
    expect(csp).toContain("require-trusted-types-for 'script'; trusted-types 'none'");
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.headers['referrer-policy']).toBe('no-referrer');
    expect(res.headers['x-frame-options']).toBe('DENY');
    // The interview room's microphone, for this page only.
    expect(res.headers['permissions-policy']).toContain('microphone=(self)');
  });

  it('lets the room upload to S3 when storage is there, and nowhere else', async () => {
    const { launchPageHeaders } = await import('../../src/modules/room/page.js');
    expect(launchPageHeaders()['content-security-policy']).toMatch(/connect-src 'self';/);
    expect(launchPageHeaders(['https://minio.acme.test:9000'])['content-security-policy']).toMatch(/connect-src 'self' https:\/\/minio\.acme\.test:9000;/);
  });

  // Was a bug: with an S3-compatible endpoint and virtual-hosted addressing (the default: R2, Wasabi, Spaces…) signed
  // URLs are https://<bucket>.<endpoint host>/…, but connect-src named the endpoint's own origin only, so the browser
  // refused every whiteboard image and recording piece the hosted interview room PUT there.
  it('allows the origin the storage actually signs upload URLs for, virtual-hosted or path-style', async () => {
    for (const pathStyle of ['false', 'true']) {
      const s3 = await startHarness({ env: {
        PREP_S3_BUCKET: 'prep-files', PREP_S3_ENDPOINT: 'https://storage.acme.test:8443', PREP_S3_FORCE_PATH_STYLE: pathStyle,
        PREP_S3_ACCESS_KEY_ID: 'AKIDEXAMPLE', PREP_S3_SECRET_ACCESS_KEY: 'secret',
      } });
      try {
        const { url } = await s3.services.files.storage.signedPutUrl('boards/x.png', { expiresIn: 60, maxBytes: 1000, accept: 'png' });
        const csp = String((await s3.app.inject({ method: 'GET', url: '/launch' })).headers['content-security-policy']);
        const connect = /connect-src ([^;]*)/.exec(csp)![1]!.split(' ');
        expect(connect, `${pathStyle}: ${url}`).toContain(new URL(url).origin);
      } finally {
        await s3.close();
      }
    }
  });

  it('serving the page uses nothing: the link stays unused and the session assigned', async () => {
    const { session, token } = await assignedSessionWithLink();
    await h.app.inject({ method: 'GET', url: '/launch' });
    const res = await preview({ token });
    expect(res.statusCode, res.body).toBe(200);
    const row = await h.db.kysely.selectFrom('launch_links').select('used_at').where('subject_id', '=', session.id).executeTakeFirstOrThrow();
    expect(row.used_at).toBeNull();
    const exchanged = await h.app.inject({ method: 'POST', url: '/v1/launch/exchange', payload: { token } });
    expect(exchanged.statusCode).toBe(201);
  });

  it('a link the exchange would refuse previews nothing: used, expired, cancelled', async () => {
    const used = await assignedSessionWithLink();
    await h.app.inject({ method: 'POST', url: '/v1/launch/exchange', payload: { token: used.token } });
    expect((await preview({ token: used.token })).json().error.code).toBe('invalid_launch_token');

    const cancelled = await assignedSessionWithLink();
    await h.app.inject({ method: 'POST', url: `/v1/coding-sessions/${cancelled.session.id}/cancel`, headers: secret() });
    const refused = await preview({ token: cancelled.token });
    expect(refused.statusCode).toBe(400);
    expect(refused.json().error.code).toBe('session_cancelled');
    expect(refused.body).not.toContain('Grace Hopper');

    const lapsed = await assignedSessionWithLink();
    h.clock.advance(8 * 86_400_000);
    expect((await preview({ token: lapsed.token })).json().error.code).toBe('assignment_expired');
  });

  it('the preview shows the branding and what the link opens, and nothing secret', async () => {
    const { test, token } = await assignedSessionWithLink();
    const body = (await preview({ token })).json();
    expect(body).toMatchObject({
      object: 'launch_preview', subject_kind: 'coding', title: test.name, duration_seconds: test.duration_minutes * 60,
      candidate_name: 'Grace Hopper', branding: { company_name: 'Acme Robotics', primary_color: '#0f766e' },
    });
    expect(JSON.stringify(body)).not.toMatch(/session_token|token_hash|email|problems/);
  });

  it('an unknown token is invalid_launch_token; a malformed body is a 400 in the envelope', async () => {
    const unknown = await preview({ token: 'x'.repeat(43) });
    expect(unknown.statusCode).toBe(401);
    expect(unknown.json().error.code).toBe('invalid_launch_token');
    for (const bad of [{}, { token: '' }, { token: 'x'.repeat(257) }, { token: 'a', extra: 1 }]) {
      const res = await preview(bad);
      expect(res.statusCode, JSON.stringify(bad)).toBe(400);
      expect(res.json().error.type).toBe('invalid_request_error');
    }
  });

  it('stays out of the API description', async () => {
    const spec = (await h.app.inject({ method: 'GET', url: '/v1/openapi.yaml' })).body;
    expect(spec).not.toMatch(/\/launch\/preview|\/embed\.js|\/room\//);
  });
});

describe('the room bundle and the embed script', () => {
  it('/embed.js is the small loader; the modules it and the launch page import are revalidated by ETag, compressed, and loadable cross-origin', async () => {
    const embed = await h.app.inject({ method: 'GET', url: '/embed.js', headers: { origin: 'https://shop.example' } });
    expect(embed.statusCode).toBe(200);
    expect(embed.headers['content-type']).toMatch(/javascript/);
    expect(embed.body).toContain('PrepEmbed');
    expect(embed.body).toContain('/room/embed-room.js');
    expect(embed.body.length).toBeLessThan(4096); // the rooms are not in it: they load when a session needs one
    expect(embed.headers['cache-control']).toBe('no-cache');
    expect(embed.headers['cross-origin-resource-policy']).toBe('cross-origin');

    // Module scripts are fetched in CORS mode, from any customer's page.
    const widget = await h.app.inject({ method: 'GET', url: '/room/embed-room.js', headers: { origin: 'https://shop.example' } });
    expect(widget.statusCode).toBe(200);
    expect(widget.headers['access-control-allow-origin']).toBe('*');
    expect(widget.body).toMatch(/export\s*\{/);

    const plain = await h.app.inject({ method: 'GET', url: '/room/launch.js' });
    expect(plain.statusCode).toBe(200);
    const etag = String(plain.headers.etag);
    expect((await h.app.inject({ method: 'GET', url: '/room/launch.js', headers: { 'if-none-match': etag } })).statusCode).toBe(304);

    // Every room is its own chunk, imported by the module the room entries share.
    const chunks = readdirSync(roomAssetsDir()!).filter((f) => f.endsWith('.js'));
    for (const room of ['coding-room', 'questionnaire-room', 'prompt-room', 'interview-room']) {
      const chunk = chunks.find((f) => f.startsWith(`${room}-`));
      expect(chunk, room).toBeDefined();
      expect(embed.body + widget.body + plain.body).not.toContain(chunk);
    }
    const biggest = chunks.map((f) => ({ f, size: statSync(path.join(roomAssetsDir()!, f)).size })).sort((a, b) => b.size - a.size)[0]!;
    const br = await h.app.inject({ method: 'GET', url: `/room/${biggest.f}`, headers: { 'accept-encoding': 'br' } });
    expect(br.headers['content-encoding']).toBe('br');
    expect(br.rawPayload.length).toBeLessThan(biggest.size / 2);
  });

  it('nothing outside the built folder is reachable', async () => {
    for (const url of ['/room/../package.json', '/room/%2e%2e/package.json', '/room/..%2f..%2fpackage.json', '/room/nope.js', '/room/', '/room']) {
      const res = await h.app.inject({ method: 'GET', url });
      expect(res.statusCode, url).toBe(404);
      expect(res.json().error.code, url).toBe('route_not_found');
      expect(res.body).not.toContain('"name": "prep"');
    }
  });
});

describe('what the room needs from the API', () => {
  it('start returns the languages with a starter template each; GET /v1/coding-languages lists the same', async () => {
    const { session } = await assignedSessionWithLink();
    await h.app.inject({ method: 'POST', url: '/v1/domains', headers: secret(), payload: { origin: 'https://room.acme.test' } });
    const minted = (await h.app.inject({ method: 'POST', url: '/v1/sessions', headers: secret(), payload: { origin: 'https://room.acme.test', coding_session_id: session.id } })).json();
    const started = await h.app.inject({ method: 'POST', url: `/v1/coding-sessions/${session.id}/start`, headers: { ...bearer(minted.session_token), origin: 'https://room.acme.test' } });
    expect(started.statusCode, started.body).toBe(200);
    const languages = (await h.app.inject({ method: 'GET', url: '/v1/coding-languages', headers: secret() })).json().data;
    expect(started.json().languages).toEqual(languages);
    for (const language of languages) expect(language.starter_template, language.id).toMatch(/\S/);
  });
});
