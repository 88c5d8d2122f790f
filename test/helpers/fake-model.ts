import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/** What the fake model was asked: the system message (if any) and the user message. */
export interface FakeModelRequest {
  system: string | null;
  user: string;
  body: any;
}

/**
 * A local OpenAI-compatible chat server standing in for a model, deterministic: it records what it was asked and
 * answers with `reply(request)` (`failStatus`, 500 unless set, while `failing` is set; nothing at all, until released, while `holding`).
 * A request whose client goes away before it is answered in full (the connection closed under it) is counted in `aborted`.
 * Token counts are the words of the messages and of the reply, so usage is predictable too.
 */
export async function startFakeModel(reply: (request: FakeModelRequest) => string) {
  const held: Array<() => void> = [];
  const model = {
    requests: [] as { url: string | undefined; auth: string | undefined; body: any }[],
    failing: false,
    /** The status a failing model answers with. */
    failStatus: 500,
    /** While true, a streamed reply stops halfway with the connection dropped. */
    breakStream: false,
    /** While true, requests are answered only when `release()` is called (or the server closes). */
    holding: false,
    /** Requests whose client closed the connection before the answer was whole (held ones included: never answered). */
    aborted: 0,
    /** Requests held now (received, not answered, their client still there). */
    get held() {
      return held.length;
    },
    release: () => held.splice(0).forEach((go) => go()),
    env: {} as Record<string, string>,
    close: () => new Promise<void>((resolve) => {
      model.release();
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
  const words = (text: string) => text.split(/\s+/).filter(Boolean).length;
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', () => {
      const parsed = JSON.parse(body);
      model.requests.push({ url: req.url, auth: req.headers.authorization, body: parsed });
      let ended = false; // answered in full, or cut by the fake itself (breakStream)
      res.on('close', () => {
        if (ended || res.writableFinished) return;
        model.aborted++;
        const at = held.indexOf(answer);
        if (at >= 0) held.splice(at, 1);
      });
      const answer = () => {
        if (model.failing) {
          res.writeHead(model.failStatus, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: 'down' } }));
          return;
        }
        const messages = (parsed.messages ?? []) as Array<{ role: string; content: string | Array<{ text?: string }> }>;
        const text = (m?: (typeof messages)[number]) => (m === undefined ? null : typeof m.content === 'string' ? m.content : m.content.map((p) => p.text ?? '').join(''));
        const user = text(messages.findLast((m) => m.role === 'user')) ?? '';
        const system = text(messages.find((m) => m.role === 'system'));
        const content = reply({ system, user, body: parsed });
        const promptTokens = words(user) + words(system ?? '');
        if (parsed.stream === true) {
          // Server-sent events as OpenAI streams them: the reply in word-sized deltas, then [DONE].
          res.writeHead(200, { 'content-type': 'text/event-stream' });
          const pieces = content.match(/\S+\s*|\s+/g) ?? [];
          for (const piece of pieces) res.write(`data: ${JSON.stringify({ choices: [{ index: 0, delta: { content: piece } }] })}\n\n`);
          if (model.breakStream) {
            ended = true;
            setTimeout(() => res.destroy(), 50); // the connection drops mid-reply, after what was written arrives
            return;
          }
          res.end(`data: ${JSON.stringify({ choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] })}\n\ndata: [DONE]\n\n`);
          return;
        }
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({
          id: 'chatcmpl-1', object: 'chat.completion', created: 1, model: parsed.model ?? 'reviewer-1',
          choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
          usage: { prompt_tokens: promptTokens, completion_tokens: words(content), total_tokens: promptTokens + words(content) },
        }));
      };
      if (model.holding) held.push(answer);
      else answer();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const port = (server.address() as AddressInfo).port;
  model.env = { PREP_MODEL_BASE_URL: `http://127.0.0.1:${port}/v1`, PREP_MODEL_NAME: 'reviewer-1', PREP_MODEL_API_KEY: 'sk-local' };
  return model;
}

export type FakeModel = Awaited<ReturnType<typeof startFakeModel>>;
