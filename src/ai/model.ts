import type { Readable } from 'node:stream';
import { request } from 'undici';
import type { Config } from '../config.js';

/** One model reply, with what it cost. */
export interface Completion {
  text: string;
  inputTokens: number | null;
  outputTokens: number | null;
  latencyMs: number;
  /** The server stopped the reply at its token limit (finish_reason "length"): the text ends where it was cut. */
  cutOff?: boolean;
}

export interface CompletionRequest {
  /** Omitted: the prompt is sent as a single user message. */
  system?: string;
  user: string;
}

export interface CompletionOptions {
  maxOutputTokens?: number;
  /** Shorter than the configured time limit, when given. */
  timeoutMs?: number;
  /** Extra tries after a failure that may pass (a network error, 429, 5xx); default 1. */
  retries?: number;
  /**
   * The caller no longer wants the reply (the client it was for has left): once aborted, the HTTP request is aborted
   * too (undici's `signal`), whether it waits for the reply's head or is reading its body, and the call rejects with a
   * ModelError whose `cancelled` is set; a retry not yet made is not made.
   */
  signal?: AbortSignal;
}

/**
 * The one interface to a language model. Any server that speaks the OpenAI chat-completions API (OpenAI, vLLM,
 * Ollama, llama.cpp) works; with none configured, features fall back to the built-in evaluators.
 */
export interface TextModel {
  /** The model's name, as reports show it. */
  id: string;
  /** Temperature 0, within the time limit. */
  complete(prompt: CompletionRequest, options?: CompletionOptions): Promise<Completion>;
  generate(prompt: { system: string; user: string }, options?: { maxOutputTokens?: number }): Promise<string>;
  /**
   * Temperature 0, the reply streamed: `onDelta` gets each piece as it arrives; resolves with the whole reply. A reply
   * that breaks off or overruns the time limit rejects (what was streamed is then the caller's to discard). No retries:
   * a stream half shown cannot be taken back.
   */
  stream(prompt: CompletionRequest, onDelta: (text: string) => void, options?: CompletionOptions): Promise<Completion>;
}

/**
 * A model call that failed; `retryable` when trying again may help. `summary` says what happened without quoting
 * anything the model server sent (a server or proxy may echo the request, which can hold what a candidate must not
 * see); `message` has the detail, for logs.
 */
export class ModelError extends Error {
  /**
   * `retryAfterMs`: how long the server asked to be left alone (its Retry-After header), when it said; `timedOut`: the
   * call's time limit ran out; `cancelled`: the caller aborted the call (its `signal`), the model did nothing wrong.
   */
  constructor(message: string, readonly retryable: boolean, readonly summary: string = message, readonly status: number | null = null,
    readonly retryAfterMs: number | null = null, readonly timedOut = false, readonly cancelled = false) {
    super(message);
  }

  /**
   * The server is down or too slow for now: the time limit ran out, it could not be reached (or broke off) even when
   * tried again, or it answered 5xx. Another request moments later will most likely fail the same way.
   */
  get unavailable(): boolean {
    return this.timedOut || (this.retryable && this.status === null) || (this.status !== null && this.status >= 500);
  }

  /**
   * The server refused the request itself (HTTP 4xx but 408, 409 and 429: too long a prompt, a wrong key or model):
   * the same request will be refused again, however often or late it is sent.
   */
  get refused(): boolean {
    return this.status !== null && this.status >= 400 && this.status < 500 && ![408, 409, 429].includes(this.status);
  }
}

interface ChatResponse {
  choices?: Array<{ message?: { content?: string | null }; finish_reason?: string | null }>;
  usage?: { prompt_tokens?: number; completion_tokens?: number };
  error?: { message?: string };
}

/** A token count as the server reported it, when it is one (a whole number); anything else is unknown. */
const tokenCount = (value: unknown): number | null => (Number.isSafeInteger(value) && (value as number) >= 0 ? value as number : null);

const RETRY_DELAY_MS = 500;
/** A server asking (Retry-After) for a longer wait than this is not asked again within the call: it fails now. */
const RETRY_AFTER_MAX_MS = 10_000;
const ERROR_BODY_SHOWN = 300;
/** The largest reply body read: far above 2,048 tokens of text; a bigger one is refused, never stored or checked. */
export const REPLY_MAX_BYTES = 64 * 1024;

/** A model server's answer: the status, the two headers read, and the body as it arrives. */
interface Reply {
  status: number;
  ok: boolean;
  contentType: string;
  contentLength: string | null;
  /** The Retry-After header, as sent. */
  retryAfter: string | null;
  body: Readable;
  /** The call's time limit: aborted once it has run out, whatever the body's stream then reports. */
  signal: AbortSignal;
  /** Stops the time limit's timer once the reply has been read (or given up on). */
  settle(): void;
}

/** The wait a Retry-After header asks for (seconds, or an HTTP date), in ms; null when there is none that reads. */
function retryAfterMs(value: string | null): number | null {
  if (value === null) return null;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  const at = Date.parse(text);
  return Number.isNaN(at) ? null : Math.max(0, at - Date.now());
}

/** The call given up by its caller (CompletionOptions.signal). */
const cancelledError = () => new ModelError('the model call was cancelled: its caller left', false, undefined, null, null, false, true);

/** Why the call's signal was aborted: its caller cancelled it, or (any other reason) the time limit ran out. */
const abortedBy = (signal: AbortSignal): 'caller' | 'time' => ((signal.reason as Error | undefined)?.name === 'AbortError' ? 'caller' : 'time');

/** What a failure while the reply was read means: the time limit ran out, the caller left, or the reply broke off (`retryable` then). */
function readFailure(res: Reply, error: unknown, retryable: boolean): ModelError {
  if (error instanceof ModelError) return error;
  if (res.signal.aborted && abortedBy(res.signal) === 'caller') return cancelledError();
  if ((error as Error).name === 'TimeoutError' || res.signal.aborted) return new ModelError('the model did not finish its reply in time', false, undefined, null, null, true);
  return new ModelError(`the model's reply broke off: ${(error as Error).message}`, retryable, 'the model\'s reply broke off');
}

/** The response body, refused past `max` bytes (read as it arrives, so a huge body is never held whole). */
async function readCapped(res: Reply, max: number): Promise<string> {
  if (res.contentLength !== null && /^\d+$/.test(res.contentLength) && Number(res.contentLength) > max) {
    res.body.destroy();
    throw new ModelError(`the model's reply is over ${max} bytes`, false);
  }
  const chunks: Buffer[] = [];
  for await (const chunk of cappedChunks(res, max)) chunks.push(chunk);
  return Buffer.concat(chunks).toString('utf8');
}

/** Waits `ms`, or less once `signal` is aborted. */
function pause(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });
}

/** The body's pieces as they arrive, refused (the stream destroyed) once they add up to more than `max` bytes. */
async function* cappedChunks(res: Reply, max: number): AsyncGenerator<Buffer> {
  let size = 0;
  for await (const chunk of res.body as AsyncIterable<Buffer>) {
    size += chunk.byteLength;
    if (size > max) {
      res.body.destroy();
      throw new ModelError(`the model's reply is over ${max} bytes`, false);
    }
    yield chunk;
  }
}

/**
 * The text pieces of an OpenAI-compatible server-sent-event stream, as they arrive; ends at `[DONE]` or the body's end.
 * `ended.cutOff` is set when an event says the server stopped at its token limit.
 */
async function* sseDeltas(res: Reply, max: number, ended: { cutOff: boolean }): AsyncGenerator<string> {
  const decoder = new TextDecoder();
  let buffered = '';
  for await (const value of cappedChunks(res, max)) {
    buffered += decoder.decode(value, { stream: true });
    let end: number;
    while ((end = buffered.indexOf('\n')) >= 0) {
      const line = buffered.slice(0, end).replace(/\r$/, '');
      buffered = buffered.slice(end + 1);
      if (!line.startsWith('data:')) continue;
      const data = line.slice(5).trim();
      if (data === '[DONE]') return;
      let event: { choices?: Array<{ delta?: { content?: string | null }; finish_reason?: string | null }>; error?: { message?: string } };
      try {
        event = JSON.parse(data);
      } catch {
        throw new ModelError('the model streamed something that is not JSON', false);
      }
      if (event.error) throw new ModelError(`the model reported an error mid-reply: ${event.error.message ?? ''}`, false, 'the model reported an error mid-reply');
      if (event.choices?.[0]?.finish_reason === 'length') ended.cutOff = true;
      const piece = event.choices?.[0]?.delta?.content;
      if (typeof piece === 'string' && piece.length > 0) yield piece.replaceAll('\u0000', '\uFFFD');
    }
  }
  throw new ModelError('the model\'s reply broke off', false);
}

/**
 * An OpenAI-compatible chat-completions client over undici's `request`: one POST per call. It replaced the AI SDK
 * (ai + @ai-sdk/openai-compatible), which added about 0.6 ms of CPU per call, 3.5 times a bare call to a local
 * model server, for a single request shape this service uses; then `fetch`, whose WHATWG streams cost 180 µs of
 * CPU per call against 45 µs for `request` (bench/prompt-grading.mjs prints both).
 */
export function createModel(config: Config['model']): TextModel | null {
  if (!config) return null;
  const url = `${config.baseUrl.replace(/\/+$/, '')}/chat/completions`;
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (config.apiKey) headers.authorization = `Bearer ${config.apiKey}`;

  async function post(prompt: CompletionRequest, options: CompletionOptions, stream: boolean): Promise<Reply> {
    const messages: Array<{ role: 'system' | 'user'; content: string }> = prompt.system === undefined ? [] : [{ role: 'system', content: prompt.system }];
    messages.push({ role: 'user', content: prompt.user });
    // A timer of our own, cleared when the call ends: AbortSignal.timeout's would stay armed for the whole limit
    // (30 s and more), one per call, thousands at a time under load. The caller's signal aborts the same controller
    // (an AbortError, told apart from the limit's TimeoutError), its listener removed when the call ends.
    if (options.signal?.aborted) throw cancelledError();
    const limit = new AbortController();
    const signal = limit.signal;
    const timer = setTimeout(() => limit.abort(new DOMException('the time limit ran out', 'TimeoutError')), Math.min(config!.timeoutMs, options.timeoutMs ?? Infinity));
    const cancel = () => limit.abort(new DOMException('the caller left', 'AbortError'));
    options.signal?.addEventListener('abort', cancel, { once: true });
    const settle = () => {
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', cancel);
    };
    try {
      const res = await request(url, {
        // The call's own limit is the only one: undici's header and body timeouts (300 s each by default) would end a
        // call the configured limit (up to 600 s) still allows, as a failure to connect, retried.
        method: 'POST', headers, signal, headersTimeout: 0, bodyTimeout: 0,
        body: JSON.stringify({ model: config!.name, messages, temperature: 0, max_tokens: options.maxOutputTokens ?? 600, ...(stream ? { stream: true } : {}) }),
      });
      const header = (name: string) => {
        const value = res.headers[name];
        return (Array.isArray(value) ? value[0] : value) ?? null;
      };
      return {
        status: res.statusCode, ok: res.statusCode >= 200 && res.statusCode < 300, contentType: header('content-type') ?? '',
        contentLength: header('content-length'), retryAfter: header('retry-after'), body: res.body, signal, settle,
      };
    } catch (error) {
      settle();
      if (signal.aborted && abortedBy(signal) === 'caller') throw cancelledError();
      if (signal.aborted || (error as Error).name === 'TimeoutError') throw new ModelError('the model did not answer in time', false, undefined, null, null, true);
      throw new ModelError(`the model could not be reached: ${(error as Error).message}`, true, 'the model could not be reached');
    }
  }

  async function once(prompt: CompletionRequest, options: CompletionOptions): Promise<Completion> {
    const started = performance.now();
    const res = await post(prompt, options, false);
    let raw: string;
    try {
      raw = await readCapped(res, REPLY_MAX_BYTES);
    } catch (error) {
      throw readFailure(res, error, true);
    } finally {
      res.settle();
    }
    let body: ChatResponse | null = null;
    try {
      body = JSON.parse(raw) as ChatResponse;
    } catch { /* reported below */ }
    if (!res.ok) {
      const said = body?.error?.message ?? raw.slice(0, ERROR_BODY_SHOWN);
      throw new ModelError(`the model answered HTTP ${res.status}: ${said}`, res.status === 429 || res.status >= 500, `the model answered HTTP ${res.status}`, res.status,
        retryAfterMs(res.retryAfter));
    }
    const text = body?.choices?.[0]?.message?.content;
    if (typeof text !== 'string') throw new ModelError(`the model's reply has no message: ${raw.slice(0, ERROR_BODY_SHOWN)}`, false, 'the model\'s reply has no message');
    return {
      // U+0000 cannot be stored in PostgreSQL text and means nothing in a reply: shown as U+FFFD.
      text: text.replaceAll('\u0000', '\uFFFD'), inputTokens: tokenCount(body?.usage?.prompt_tokens), outputTokens: tokenCount(body?.usage?.completion_tokens),
      latencyMs: Math.round(performance.now() - started), cutOff: body?.choices?.[0]?.finish_reason === 'length',
    };
  }

  /**
   * The error as callers get it: without the API key, which a server or proxy may echo back ("Incorrect API key
   * provided: Bearer sk-…") into a message that is logged.
   */
  const withoutKey = (error: unknown): unknown => {
    const key = config.apiKey;
    if (!key || !(error instanceof Error) || !`${error.message}\u0000${(error as ModelError).summary ?? ''}`.includes(key)) return error;
    if (!(error instanceof ModelError)) return new ModelError(error.message.replaceAll(key, '[redacted]'), false, 'the model call failed');
    return new ModelError(error.message.replaceAll(key, '[redacted]'), error.retryable, error.summary.replaceAll(key, '[redacted]'), error.status, error.retryAfterMs,
      error.timedOut, error.cancelled);
  };

  const model: TextModel = {
    id: config.name,
    async complete(prompt, options = {}) {
      const retries = options.retries ?? 1;
      for (let attempt = 0; ; attempt++) {
        try {
          return await once(prompt, options);
        } catch (error) {
          if (!(error instanceof ModelError) || !error.retryable || attempt >= retries) throw withoutKey(error);
          // As long as the server asked, when it did (not at all when that is long); otherwise a growing delay, spread
          // so that callers failed together do not all come back at once.
          if (error.retryAfterMs !== null && error.retryAfterMs > RETRY_AFTER_MAX_MS) throw withoutKey(error);
          const backoff = RETRY_DELAY_MS * (attempt + 1) * (0.5 + Math.random());
          await pause(Math.max(backoff, error.retryAfterMs ?? 0), options.signal);
          if (options.signal?.aborted) throw cancelledError();
        }
      }
    },
    async generate(prompt, options = {}) {
      return (await model.complete(prompt, options)).text;
    },
    async stream(prompt, onDelta, options = {}) {
      const started = performance.now();
      const res = await post(prompt, options, true).catch((error: unknown) => { throw withoutKey(error); });
      try {
        return await streamed(res, started, onDelta);
      } catch (error) {
        // However the reply's reading ended (a body given up as empty, say), a call its caller cancelled says so.
        throw withoutKey(res.signal.aborted && abortedBy(res.signal) === 'caller' ? cancelledError() : error);
      } finally {
        res.settle();
      }
    },
  };

  /** A streamed call's reply, read as it arrives (or in one piece from a server that ignores `stream`). */
  async function streamed(res: Reply, started: number, onDelta: (text: string) => void): Promise<Completion> {
    if (!res.ok) {
      const raw = await readCapped(res, REPLY_MAX_BYTES).catch(() => '');
      throw new ModelError(`the model answered HTTP ${res.status}: ${raw.slice(0, ERROR_BODY_SHOWN)}`, false, `the model answered HTTP ${res.status}`, res.status);
    }
    if (!res.contentType.includes('text/event-stream')) {
      // A server that ignores `stream` answers in one piece.
      const body = JSON.parse(await readCapped(res, REPLY_MAX_BYTES).catch(() => 'null')) as ChatResponse | null;
      const whole = body?.choices?.[0]?.message?.content;
      if (typeof whole !== 'string') throw new ModelError('the model\'s reply has no message', false);
      const clean = whole.replaceAll('\u0000', '\uFFFD');
      onDelta(clean);
      return {
        text: clean, inputTokens: tokenCount(body?.usage?.prompt_tokens), outputTokens: tokenCount(body?.usage?.completion_tokens), latencyMs: Math.round(performance.now() - started),
        cutOff: body?.choices?.[0]?.finish_reason === 'length',
      };
    }
    let text = '';
    const ended = { cutOff: false };
    try {
      for await (const piece of sseDeltas(res, REPLY_MAX_BYTES, ended)) {
        text += piece;
        onDelta(piece);
      }
    } catch (error) {
      throw readFailure(res, error, false); // a stream half shown is never retried
    }
    return { text, inputTokens: null, outputTokens: null, latencyMs: Math.round(performance.now() - started), cutOff: ended.cutOff };
  }
  return model;
}
