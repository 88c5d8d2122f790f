import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A throwaway self-signed certificate for `localhost` (and `receiver.test`), made with openssl, deleted by `remove`. */
export function selfSignedCertificate(): { dir: string; keyFile: string; certFile: string; key: Buffer; cert: Buffer; remove(): void } {
  const dir = mkdtempSync(join(tmpdir(), 'prep-tls-'));
  const keyFile = join(dir, 'key.pem');
  const certFile = join(dir, 'cert.pem');
  execFileSync('openssl', [
    'req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '1',
    '-subj', '/CN=localhost', '-addext', 'subjectAltName=DNS:localhost,DNS:receiver.test',
    '-keyout', keyFile, '-out', certFile,
  ], { stdio: 'ignore' });
  return { dir, keyFile, certFile, key: readFileSync(keyFile), cert: readFileSync(certFile), remove: () => rmSync(dir, { recursive: true, force: true }) };
}

export interface ReceivedWebhook {
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/**
 * A real HTTPS webhook receiver on 127.0.0.1 (reached as https://localhost:<port>/hook). It records every
 * request; `answer` decides each response status (default 200), and optionally its body and headers
 * (a long body, a redirect's Location); `hang` makes it never answer.
 */
export async function startWebhookReceiver() {
  const tls = selfSignedCertificate();
  const received: ReceivedWebhook[] = [];
  const state = { status: 200, hang: false, body: null as string | null, headers: {} as Record<string, string> };
  const server = https.createServer({ key: tls.key, cert: tls.cert }, (req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (body += chunk));
    req.on('end', () => {
      received.push({ headers: req.headers, body });
      if (state.hang) return;
      res.writeHead(state.status, { 'content-type': 'text/plain', ...state.headers }).end(state.body ?? `answered ${state.status}`);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `https://localhost:${port}/hook`,
    caFile: tls.certFile,
    received,
    answer(status: number, options: { body?: string; headers?: Record<string, string> } = {}) {
      state.status = status;
      state.hang = false;
      state.body = options.body ?? null;
      state.headers = options.headers ?? {};
    },
    hang() {
      state.hang = true;
    },
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      tls.remove();
    },
  };
}
