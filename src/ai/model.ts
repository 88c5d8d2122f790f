import type { Config } from '../config.js';

/** One model reply, with what it cost. */
export interface Completion {
  text: string;
  inputTokens: number | null;
  outputTokens: number | null;
  latencyMs: number;
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
}

/** A model call that failed; `retryable` when trying again may help. */
export class ModelError extends Error {
  constructor(message: string, readonly retryable: boolean) {
    super(message);
  }
}

interface ChatResponse {
  choices?: Array<{ message?: { content?: string | null } }>;
  usage?: { prompt_tokens?: number; completion_tokens?: number };
  error?: { message?: string };
}

const RETRY_DELAY_MS = 500;
const ERROR_BODY_SHOWN = 300;

/**
 * An OpenAI-compatible chat-completions client over fetch: one POST per call, no streaming. It replaced the AI SDK
 * (ai + @ai-sdk/openai-compatible), which added about 0.6 ms of CPU per call, 3.5 times a bare call to a local
 * model server (bench/prompt-grading.mjs), for a single request shape this service uses.
 */
export function createModel(config: Config['model']): TextModel | null {
  if (!config) return null;
  const url = `${config.baseUrl.replace(/\/+$/, '')}/chat/completions`;
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (config.apiKey) headers.authorization = `Bearer ${config.apiKey}`;

  async function once(prompt: CompletionRequest, options: CompletionOptions): Promise<Completion> {
    const started = performance.now();
    const messages: Array<{ role: 'system' | 'user'; content: string }> = prompt.system === undefined ? [] : [{ role: 'system', content: prompt.system }];
    messages.push({ role: 'user', content: prompt.user });
    let res: Response;
    try {
      res = await fetch(url, {
        method: 'POST', headers,
        body: JSON.stringify({ model: config!.name, messages, temperature: 0, max_tokens: options.maxOutputTokens ?? 600 }),
        signal: AbortSignal.timeout(Math.min(config!.timeoutMs, options.timeoutMs ?? Infinity)),
      });
    } catch (error) {
      const timedOut = (error as Error).name === 'TimeoutError';
      throw new ModelError(timedOut ? 'the model did not answer in time' : `the model could not be reached: ${(error as Error).message}`, !timedOut);
    }
    const raw = await res.text();
    let body: ChatResponse | null = null;
    try {
      body = JSON.parse(raw) as ChatResponse;
    } catch { /* reported below */ }
    if (!res.ok) {
      const said = body?.error?.message ?? raw.slice(0, ERROR_BODY_SHOWN);
      throw new ModelError(`the model answered HTTP ${res.status}: ${said}`, res.status === 429 || res.status >= 500);
    }
    const text = body?.choices?.[0]?.message?.content;
    if (typeof text !== 'string') throw new ModelError(`the model's reply has no message: ${raw.slice(0, ERROR_BODY_SHOWN)}`, false);
    return {
      text, inputTokens: body?.usage?.prompt_tokens ?? null, outputTokens: body?.usage?.completion_tokens ?? null,
      latencyMs: Math.round(performance.now() - started),
    };
  }

  const model: TextModel = {
    id: config.name,
    async complete(prompt, options = {}) {
      const retries = options.retries ?? 1;
      for (let attempt = 0; ; attempt++) {
        try {
          return await once(prompt, options);
        } catch (error) {
          if (!(error instanceof ModelError) || !error.retryable || attempt >= retries) throw error;
          await new Promise((r) => setTimeout(r, RETRY_DELAY_MS * (attempt + 1)));
        }
      }
    },
    async generate(prompt, options = {}) {
      return (await model.complete(prompt, options)).text;
    },
  };
  return model;
}
