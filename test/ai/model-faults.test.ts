import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Agent, getGlobalDispatcher, setGlobalDispatcher } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createModel, ModelError } from '../../src/ai/model.js';
import type { InterviewerMove, InterviewSetup } from '../../src/modules/interviews/interviewer/types.js';
import { phraseWithModel } from '../../src/modules/interviews/model-interviewer.js';

/** A model server whose every answer the test decides: transport and protocol faults a real one (or its proxy) shows. */
type Handler = (req: IncomingMessage, res: ServerResponse) => void;
let handler: Handler = () => undefined;
let hits: number[] = [];
const server = createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    hits.push(performance.now());
    handler(req, res);
  });
});
let baseUrl = '';
beforeAll(async () => {
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
});
afterAll(() => {
  server.closeAllConnections();
  server.close();
});

const KEY = 'sk-test-4f9c1e7a2b';
const modelWith = (timeoutMs = 5_000) => createModel({ baseUrl, name: 'm', apiKey: KEY, timeoutMs, concurrency: 4 })!;
const failure = async (call: Promise<unknown>) => {
  try {
    await call;
  } catch (error) {
    return error as ModelError;
  }
  throw new Error('the call did not fail');
};
const json = (status: number, body: unknown, headers: Record<string, string> = {}): Handler => (_req, res) => {
  res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));
};

describe('the model client under faults', () => {
  it('never puts the API key in an error, even when the server echoes it back', async () => {
    hits = [];
    handler = (req, res) => json(401, { error: { message: `Incorrect API key provided: ${req.headers.authorization}` } })(req, res);
    const model = modelWith();
    for (const call of [() => model.complete({ user: 'hi' }), () => model.stream({ user: 'hi' }, () => undefined)]) {
      const error = await failure(call());
      expect(error).toBeInstanceOf(ModelError);
      expect(error.message).toContain('HTTP 401');
      expect(`${error.message} ${error.summary} ${error.stack}`).not.toContain(KEY);
      expect(error.unavailable).toBe(false); // refused: the model is up
    }
  });

  // Was a bug: undici's own header and body timeouts (300 s by default) ended a call the configured limit still
  // allowed (PREP_MODEL_TIMEOUT_MS goes to 600 s; a local model answers a non-streamed call only once it has written
  // it all), as "could not be reached", retryable: the slow model was asked the same thing again. A dispatcher with
  // short timeouts stands in for the defaults here.
  it('is held to its own time limit, not to undici\'s header and body timeouts', async () => {
    const previous = getGlobalDispatcher();
    const short = new Agent({ headersTimeout: 200, bodyTimeout: 200 });
    setGlobalDispatcher(short);
    try {
      hits = [];
      handler = (_req, res) => void setTimeout(() => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.write('{"choices": [{"message": {"content": ');
        setTimeout(() => res.end('"late but whole"}}]}'), 1500);
      }, 1500);
      const reply = await modelWith(5_000).complete({ user: 'hi' });
      expect(reply.text).toBe('late but whole');
      expect(hits).toHaveLength(1);
    } finally {
      setGlobalDispatcher(previous);
      await short.close();
    }
  });

  it('still ends a call that never answers, or stalls mid-body, at its own limit, and does not retry it', async () => {
    const model = modelWith(5_000);
    for (const [stall, said] of [
      [() => undefined, 'the model did not answer in time'],
      [(_req: IncomingMessage, res: ServerResponse) => void res.writeHead(200, { 'content-type': 'application/json' }).write('{"choices": '), 'the model did not finish its reply in time'],
    ] as const) {
      hits = [];
      handler = stall;
      const started = performance.now();
      const error = await failure(model.complete({ user: 'hi' }, { timeoutMs: 300 }));
      expect(error.summary).toBe(said);
      expect(error.unavailable).toBe(true); // the code review asks no more within its report
      expect(performance.now() - started).toBeLessThan(2_000);
      expect(hits).toHaveLength(1);
    }
  });

  // Was a bug: Retry-After was ignored: a 429 or 503 asking for 30 s was asked again 0.5 s later (every caller at
  // once, under load), and one asking for 1 s before that second had passed.
  it('honours Retry-After: waits for a short one, and does not retry when asked to wait long', async () => {
    const model = modelWith();
    hits = [];
    handler = json(429, { error: { message: 'slow down' } }, { 'retry-after': '30' });
    const error = await failure(model.complete({ user: 'hi' }));
    expect(error.status).toBe(429);
    expect(hits).toHaveLength(1);

    hits = [];
    handler = json(503, { error: { message: 'loading' } }, { 'retry-after': new Date(Date.now() + 3_600_000).toUTCString() });
    await failure(model.complete({ user: 'hi' }));
    expect(hits).toHaveLength(1);

    hits = [];
    handler = (req, res) => (hits.length === 1 ? json(503, { error: { message: 'loading' } }, { 'retry-after': '1' }) : json(200, { choices: [{ message: { content: 'ready' } }] }))(req, res);
    expect((await model.complete({ user: 'hi' })).text).toBe('ready');
    expect(hits).toHaveLength(2);
    expect(hits[1]! - hits[0]!).toBeGreaterThanOrEqual(950);
  });

  // Was a bug: a call had no way to be stopped by its caller: an interviewer's turn whose candidate had left held its
  // model slot, and the model's tokens, until the reply was whole or its time limit (20 s) ran out.
  it('aborts the HTTP request when its caller aborts the call: before the reply\'s head, mid-stream, in a retry\'s wait', async () => {
    const model = modelWith(60_000); // far past every wait here: an abort seen is the caller's, never the limit's
    let cut = 0;
    const watched = (res: ServerResponse) => res.on('close', () => { if (!res.writableFinished) cut++; });
    const until = async (test: () => boolean, what: string) => {
      for (const deadline = Date.now() + 10_000; !test();) {
        if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
        await new Promise((r) => setTimeout(r, 10));
      }
    };
    const cancelled = (error: ModelError) => {
      expect(error).toBeInstanceOf(ModelError);
      expect(error.cancelled).toBe(true);
      expect(error.timedOut).toBe(false);
      expect(error.unavailable).toBe(false); // the model did nothing wrong: a code review would go on asking it
    };

    // The server has not answered yet.
    hits = [];
    handler = (_req, res) => void watched(res);
    const waiting = new AbortController();
    const unanswered = failure(model.complete({ user: 'hi' }, { signal: waiting.signal }));
    await until(() => hits.length === 1, 'the request');
    waiting.abort();
    cancelled(await unanswered);
    await until(() => cut === 1, 'the server to see the request go');

    // Mid-stream: the first piece arrived, the rest never comes.
    hits = [];
    handler = (_req, res) => {
      watched(res);
      res.writeHead(200, { 'content-type': 'text/event-stream' }).write(`data: ${JSON.stringify({ choices: [{ index: 0, delta: { content: 'Hello' } }] })}\n\n`);
    };
    const streaming = new AbortController();
    const pieces: string[] = [];
    cancelled(await failure(model.stream({ user: 'hi' }, (piece) => {
      pieces.push(piece);
      streaming.abort();
    }, { signal: streaming.signal })));
    expect(pieces).toEqual(['Hello']);
    await until(() => cut === 2, 'the server to see the stream go');

    // Between tries: a 503 asking for 9 s; the call ends when aborted, and the second try is never made.
    hits = [];
    handler = json(503, { error: { message: 'loading' } }, { 'retry-after': '9' });
    const retrying = new AbortController();
    const started = performance.now();
    const retried = failure(model.complete({ user: 'hi' }, { signal: retrying.signal }));
    await until(() => hits.length === 1, 'the first try');
    retrying.abort();
    cancelled(await retried);
    expect(performance.now() - started).toBeLessThan(6_000);
    expect(hits).toHaveLength(1);

    // Aborted before it starts: nothing is sent.
    hits = [];
    cancelled(await failure(model.stream({ user: 'hi' }, () => undefined, { signal: AbortSignal.abort() })));
    expect(hits).toHaveLength(0);
  });

  // Was a bug: a reply the server stopped at max_tokens (finish_reason "length") was taken as whole, so the model
  // interviewer said a turn cut off mid-sentence, its question lost ("Could you walk me through how you"), and stored it.
  it('the model interviewer gives up a turn the server cut off at its token limit', async () => {
    const setup: InterviewSetup = {
      style: 'behavioral', roundName: 'Behavioral Interview', role: 'Engineer', difficulty: 3, candidateName: null, resume: null, durationMs: 1_800_000,
      plan: [{ position: 0, source: 'bank', questionId: null, title: 'Conflict', prompt: 'Tell me about a conflict.', keyPoints: [], followUps: [], minutes: 10, problem: null }],
    };
    const move = { text: 'What did you do next?', reason: 'probe:star:action', questionPosition: 0 } as InterviewerMove;
    const event = (body: unknown) => `data: ${JSON.stringify(body)}\n\n`;
    const cutOff: Handler[] = [
      (_req, res) => void res.writeHead(200, { 'content-type': 'text/event-stream' }).end(
        event({ choices: [{ index: 0, delta: { content: 'Thanks. Could you walk me through how you' } }] })
        + event({ choices: [{ index: 0, delta: {}, finish_reason: 'length' }] }) + 'data: [DONE]\n\n'),
      json(200, { choices: [{ message: { content: 'Thanks. Could you walk me through how you' }, finish_reason: 'length' }] }),
    ];
    for (const h of cutOff) {
      handler = h;
      await expect(phraseWithModel(modelWith(), setup, [], move, () => undefined)).rejects.toThrow(/cut off/);
    }
    handler = json(200, { choices: [{ message: { content: 'Thanks. What did you do next?' }, finish_reason: 'stop' }] });
    await expect(phraseWithModel(modelWith(), setup, [], move, () => undefined)).resolves.toBe('Thanks. What did you do next?');
  });
});
