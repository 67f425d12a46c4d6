/** The Assistant API's paths and its `message` envelope, as the chat tests read them. */
export const API = '/api/method/assistant.api';

export type EnvelopeBody = {
  message: {
    success: boolean;
    data: Record<string, unknown>;
    tokens_used: { input: number; output: number; total: number };
    error?: Record<string, unknown>;
  };
};

/** A tool call as a chat answer reports it. */
export type ToolCall = {
  id: string;
  name: string;
  arguments: Record<string, unknown>;
  status: string;
  result?: unknown;
};

export const messageOf = (response: { body: unknown }) => (response.body as EnvelopeBody).message;
export const dataOf = (response: { body: unknown }) => messageOf(response).data;
