import OpenAI from 'openai';

export interface OpenAiEndpoint {
  baseUrl: string;
  /** Empty for local servers (Ollama, llama.cpp, vLLM) that need none. */
  apiKey: string;
  timeoutMs: number;
}

/**
 * A client for any OpenAI-compatible endpoint, set up the way every model adapter here wants it: one
 * attempt per call (callers have local fallbacks and their own time budgets), and a placeholder key
 * for servers that take none (the SDK refuses an empty one).
 */
export function createOpenAiClient(endpoint: OpenAiEndpoint): OpenAI {
  return new OpenAI({
    baseURL: endpoint.baseUrl,
    apiKey: endpoint.apiKey || 'no-key',
    timeout: endpoint.timeoutMs,
    maxRetries: 0,
  });
}
