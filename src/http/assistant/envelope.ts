import type { Schema } from '../route.js';

/** Token accounting of one response: what a model read and wrote for it. */
export interface TokensUsed {
  input: number;
  output: number;
  total: number;
}

export const NO_TOKENS: TokensUsed = Object.freeze({ input: 0, output: 0, total: 0 });

export const tokensUsedSchema = {
  type: 'object',
  required: ['input', 'output', 'total'],
  properties: {
    input: { type: 'integer', minimum: 0 },
    output: { type: 'integer', minimum: 0 },
    total: { type: 'integer', minimum: 0 },
  },
} as const satisfies Schema;

/**
 * The Assistant API's answer: `{ message: { success: true, data, tokens_used } }`, with zeros for
 * endpoints that use no model.
 */
export function envelope(
  data: unknown,
  tokens: TokensUsed = NO_TOKENS,
): { message: Record<string, unknown> } {
  return { message: { success: true, data, tokens_used: { ...tokens } } };
}

/** The OpenAPI schema of a successful envelope around `data`. */
export function envelopeSchema(data: Schema): Schema {
  return {
    type: 'object',
    required: ['message'],
    properties: {
      message: {
        type: 'object',
        required: ['success', 'data', 'tokens_used'],
        properties: { success: { const: true }, data, tokens_used: tokensUsedSchema },
      },
    },
  };
}
