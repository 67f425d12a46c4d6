import type { JsonValue } from '../settings/events.js';

export const ONBOARDING_MODULES = ['knowledge', 'assistant', 'tools'] as const;
export type OnboardingModule = (typeof ONBOARDING_MODULES)[number];

/**
 * One question of a session. `schema` is the JSON schema an answer must satisfy (checked before the
 * answer is recorded); a question not `required` takes its `default` when left unanswered.
 * `module` null: asked whatever modules the session sets up.
 */
export interface Question {
  key: string;
  module: OnboardingModule | null;
  prompt: string;
  schema: Record<string, unknown>;
  required: boolean;
  default: JsonValue;
}

/** The tool categories onboarding can switch on (the registry's). */
const TOOL_CATEGORY_CHOICES = ['knowledge', 'tasks', 'conversations'] as const;

const QUESTIONS: readonly Question[] = [
  {
    key: 'company_name',
    module: null,
    prompt: 'What is the name of your organisation?',
    schema: { type: 'string', minLength: 1, maxLength: 200, pattern: '\\S' },
    required: false,
    default: null,
  },
  {
    key: 'knowledge.sources',
    module: 'knowledge',
    prompt:
      'Which web pages should the knowledge base start with? A list of http(s) URLs (an empty list: none).',
    schema: {
      type: 'array',
      maxItems: 50,
      uniqueItems: true,
      items: { type: 'string', minLength: 1, maxLength: 2_048, pattern: '^[hH][tT][tT][pP][sS]?://[^\\s/]+' },
    },
    required: true,
    default: [],
  },
  {
    key: 'knowledge.ingest_now',
    module: 'knowledge',
    prompt: 'Should those pages be fetched and ingested now?',
    schema: { type: 'boolean' },
    required: false,
    default: true,
  },
  {
    key: 'assistant.name',
    module: 'assistant',
    prompt: 'What should the assistant be called?',
    schema: { type: 'string', minLength: 1, maxLength: 80, pattern: '\\S' },
    required: true,
    default: null,
  },
  {
    key: 'assistant.language',
    module: 'assistant',
    prompt:
      'Which language should it answer in: en (English), ar (Arabic) or auto (the language of the question)?',
    schema: { enum: ['en', 'ar', 'auto'] },
    required: true,
    default: 'auto',
  },
  {
    key: 'assistant.instructions',
    module: 'assistant',
    prompt: 'Anything it should always keep in mind (tone, topics, what not to do)? Optional.',
    schema: { type: 'string', minLength: 1, maxLength: 4_000 },
    required: false,
    default: null,
  },
  {
    key: 'tools.categories',
    module: 'tools',
    prompt: `Which kinds of tools may the assistant use? Any of ${TOOL_CATEGORY_CHOICES.join(', ')}.`,
    schema: { type: 'array', uniqueItems: true, items: { enum: [...TOOL_CATEGORY_CHOICES] } },
    required: false,
    default: [...TOOL_CATEGORY_CHOICES],
  },
  {
    key: 'tools.high_risk_policy',
    module: 'tools',
    prompt:
      'Tools that change or delete data: should each call wait for a confirmation (confirm) or be switched off (disabled)?',
    schema: { enum: ['confirm', 'disabled'] },
    required: false,
    default: 'confirm',
  },
];

/** The questions of a session setting up `modules`, in the order they are asked. */
export function questionsFor(modules: readonly OnboardingModule[]): Question[] {
  return QUESTIONS.filter((question) => question.module === null || modules.includes(question.module));
}
