import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { generateText } from 'ai';
import type { Config } from '../config.js';

/**
 * The one interface to a language model. Any server that speaks the OpenAI chat API (OpenAI, vLLM, Ollama,
 * llama.cpp) works; with none configured, features fall back to the built-in evaluators.
 */
export interface TextModel {
  /** provider/model, as reports name it. */
  id: string;
  generate(prompt: { system: string; user: string }, options?: { maxOutputTokens?: number }): Promise<string>;
}

export function createModel(config: Config['model']): TextModel | null {
  if (!config) return null;
  const provider = createOpenAICompatible({ name: 'prep-model', baseURL: config.baseUrl, apiKey: config.apiKey ?? undefined });
  return {
    id: config.name,
    async generate(prompt, options = {}) {
      const { text } = await generateText({
        model: provider.chatModel(config.name),
        system: prompt.system,
        prompt: prompt.user,
        maxOutputTokens: options.maxOutputTokens ?? 600,
        temperature: 0,
        maxRetries: 1,
        abortSignal: AbortSignal.timeout(config.timeoutMs),
      });
      return text;
    },
  };
}
