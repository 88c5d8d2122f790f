import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A local OpenAI-compatible chat server standing in for a model. It records what it was asked and answers with
 * `reply()` (a 500 while `failing` is set).
 */
export async function startFakeModel(reply: () => string) {
  const model = {
    requests: [] as { url: string | undefined; auth: string | undefined; body: any }[],
    failing: false,
    env: {} as Record<string, string>,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', () => {
      model.requests.push({ url: req.url, auth: req.headers.authorization, body: JSON.parse(body) });
      if (model.failing) {
        res.writeHead(500, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: 'down' } }));
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({
        id: 'chatcmpl-1', object: 'chat.completion', created: 1, model: 'reviewer-1',
        choices: [{ index: 0, message: { role: 'assistant', content: reply() }, finish_reason: 'stop' }],
        usage: { prompt_tokens: 10, completion_tokens: 10, total_tokens: 20 },
      }));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const port = (server.address() as AddressInfo).port;
  model.env = { PREP_MODEL_BASE_URL: `http://127.0.0.1:${port}/v1`, PREP_MODEL_NAME: 'reviewer-1', PREP_MODEL_API_KEY: 'sk-local' };
  return model;
}
