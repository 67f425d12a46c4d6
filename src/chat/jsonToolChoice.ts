import type { ResponseFormat, ToolDefinition } from '../models/chatModel.js';

/** The choice that ends the tool rounds: the model answers in plain text next. */
const ANSWER_CHOICE = 'answer';

/**
 * Only a tool's required parameters, all of them required: grammar engines write every property a
 * schema lists, and optional ones left to their defaults keep a small model from inventing values.
 */
function requiredOnly(parameters: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const required = Array.isArray(parameters['required']) ? (parameters['required'] as string[]) : [];
  const properties = (parameters['properties'] ?? {}) as Record<string, Record<string, unknown>>;
  const kept = Object.fromEntries(
    required.filter((name) => properties[name]).map((name) => [name, plainSchema(properties[name]!)]),
  );
  return { type: 'object', properties: kept, required: Object.keys(kept), additionalProperties: false };
}

/** A property's schema in the subset every grammar engine reads: type, enum, const, items. */
function plainSchema(schema: Record<string, unknown>): Record<string, unknown> {
  const kept: Record<string, unknown> = {};
  for (const key of ['type', 'enum', 'const'] as const) if (key in schema) kept[key] = schema[key];
  if (schema['items'] && typeof schema['items'] === 'object') {
    kept['items'] = plainSchema(schema['items'] as Record<string, unknown>);
  }
  if (Object.keys(kept).length === 0) kept['type'] = 'string';
  return kept;
}

/**
 * The constrained-JSON fallback for models that cannot emit native tool calls (documented in
 * docs/api-notes.md): each round the model must answer one JSON object naming a tool with its
 * arguments, or `{"tool": "answer"}` to stop and answer in text. The grammar makes the choice parse
 * and name a real tool; the registry still validates the arguments before anything runs.
 */
export function toolChoiceFormat(tools: readonly ToolDefinition[]): ResponseFormat {
  const choices: Array<Record<string, unknown>> = tools.map((tool) => ({
    type: 'object',
    properties: { tool: { const: tool.name }, arguments: requiredOnly(tool.parameters) },
    required: ['tool', 'arguments'],
    additionalProperties: false,
  }));
  choices.push({
    type: 'object',
    properties: { tool: { const: ANSWER_CHOICE } },
    required: ['tool'],
    additionalProperties: false,
  });
  return { name: 'tool_choice', schema: { oneOf: choices }, strict: false };
}

/** The instructions the fallback adds to the system prompt: what the tools are and how to choose. */
export function toolChoiceInstructions(tools: readonly ToolDefinition[]): string {
  const lines = tools.map((tool) => `- ${tool.name}: ${tool.description}`);
  return [
    'You can use these tools:',
    ...lines,
    `Reply with one JSON object: {"tool": NAME, "arguments": {...}} to use a tool, or {"tool": "${ANSWER_CHOICE}"} when you can answer.`,
  ].join('\n');
}

export type ParsedChoice =
  | { kind: 'answer' }
  | { kind: 'call'; name: string; arguments: Record<string, unknown> }
  | { kind: 'invalid'; reason: string };

/** The model's choice; a model that ignored the grammar (an unconstrained server) is `invalid`. */
export function parseToolChoice(text: string): ParsedChoice {
  let value: unknown;
  try {
    value = JSON.parse(text.trim());
  } catch {
    return { kind: 'invalid', reason: 'the answer is not JSON' };
  }
  if (!value || typeof value !== 'object' || Array.isArray(value)) {
    return { kind: 'invalid', reason: 'the answer is not a JSON object' };
  }
  const { tool, arguments: args } = value as { tool?: unknown; arguments?: unknown };
  if (tool === ANSWER_CHOICE) return { kind: 'answer' };
  if (typeof tool !== 'string') return { kind: 'invalid', reason: 'no tool named' };
  if (args !== undefined && (typeof args !== 'object' || args === null || Array.isArray(args))) {
    return { kind: 'invalid', reason: 'arguments is not an object' };
  }
  return { kind: 'call', name: tool, arguments: (args ?? {}) as Record<string, unknown> };
}
