// A customer's page that embeds the Prep room (a coding session or an interview): a tiny Node server (no dependencies) that serves the
// page and mints a session token server-side, where the secret key lives. See docs/embedding.md.
//
//   PREP_URL=http://localhost:8080 PREP_SECRET_KEY=svc_sk_test_… PREP_PUBLISHABLE_KEY=svc_pk_test_… \
//   CODING_SESSION_ID=<a coding session id> node examples/embed/server.mjs     (or INTERVIEW_ID=<an interview id>)
//
// Then allowlist this page's origin once: POST /v1/domains {"origin": "http://localhost:3000"}.
import { readFileSync } from 'node:fs';
import http from 'node:http';
import { fileURLToPath } from 'node:url';

const here = new URL('.', import.meta.url);
const page = readFileSync(new URL('index.html', here), 'utf8');
const script = readFileSync(new URL('app.js', here), 'utf8');
const escape = (s) => String(s).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** Starts the example host; resolves to its origin and a close function. */
export async function startExampleHost({ port = 3000, hostname = 'localhost', prepUrl, secretKey, publishableKey, codingSessionId, interviewId }) {
  const subject = interviewId ? { interview_id: interviewId } : { coding_session_id: codingSessionId };
  const origin = `http://${hostname}:${port}`;
  const server = http.createServer(async (req, res) => {
    try {
      if (req.method === 'GET' && (req.url === '/' || req.url === '/index.html')) {
        const html = page.replaceAll('{{PREP_URL}}', escape(prepUrl)).replaceAll('{{PUBLISHABLE_KEY}}', escape(publishableKey));
        res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' }).end(html);
      } else if (req.method === 'GET' && req.url === '/app.js') {
        res.writeHead(200, { 'content-type': 'text/javascript; charset=utf-8' }).end(script);
      } else if (req.method === 'POST' && req.url === '/session') {
        // Your server decides who the visitor is and which assessment they take; here, one fixed session.
        const minted = await fetch(`${prepUrl}/v1/sessions`, {
          method: 'POST',
          headers: { authorization: `Bearer ${secretKey}`, 'content-type': 'application/json' },
          body: JSON.stringify({ origin, ...subject }),
        });
        res.writeHead(minted.status, { 'content-type': 'application/json' }).end(await minted.text());
      } else {
        res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
      }
    } catch (error) {
      res.writeHead(502, { 'content-type': 'text/plain' }).end(String(error));
    }
  });
  await new Promise((resolve) => server.listen(port, hostname === 'localhost' ? '127.0.0.1' : hostname, resolve));
  return { origin, close: () => new Promise((resolve) => server.close(resolve)) };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const env = process.env;
  for (const name of ['PREP_URL', 'PREP_SECRET_KEY', 'PREP_PUBLISHABLE_KEY']) {
    if (!env[name]) throw new Error(`Set ${name} (see the comment at the top of this file).`);
  }
  if (!env.CODING_SESSION_ID && !env.INTERVIEW_ID) throw new Error('Set CODING_SESSION_ID or INTERVIEW_ID (see the comment at the top of this file).');
  const { origin } = await startExampleHost({
    port: Number(env.PORT ?? 3000), prepUrl: env.PREP_URL.replace(/\/$/, ''), secretKey: env.PREP_SECRET_KEY,
    publishableKey: env.PREP_PUBLISHABLE_KEY, codingSessionId: env.CODING_SESSION_ID, interviewId: env.INTERVIEW_ID,
  });
  console.log(`Example host page: ${origin}  (allowlist this origin with POST /v1/domains)`);
}
