import type { OnboardingConfiguration } from '../../domain/onboarding/events.js';
import type { Onboarding, Session } from '../../onboarding/onboarding.js';
import type { Schema } from '../route.js';

const nullableString = { type: ['string', 'null'] } as const;
const stringArray = { type: 'array', items: { type: 'string' } } as const;

const questionSchema = {
  type: 'object',
  required: ['key', 'module', 'prompt', 'schema', 'required', 'default', 'answered'],
  properties: {
    key: { type: 'string' },
    module: { type: ['string', 'null'] },
    prompt: { type: 'string' },
    schema: { type: 'object' },
    required: { type: 'boolean' },
    default: {},
    answered: { type: 'boolean' },
    answer: {},
  },
} as const satisfies Schema;

const configurationSchema = {
  type: 'object',
  required: ['settings', 'ingestion', 'tools'],
  properties: {
    settings: { type: 'object' },
    ingestion: {
      type: ['object', 'null'],
      required: ['urls', 'start_now', 'task_id'],
      properties: { urls: stringArray, start_now: { type: 'boolean' }, task_id: nullableString },
    },
    tools: {
      type: ['object', 'null'],
      required: ['enabled', 'disabled', 'confirm'],
      properties: { enabled: stringArray, disabled: stringArray, confirm: stringArray },
    },
  },
} as const satisfies Schema;

export const sessionSchema = {
  type: 'object',
  required: [
    'session_id',
    'status',
    'modules',
    'questions',
    'answered',
    'remaining',
    'required_remaining',
    'ready',
    'configuration',
    'started_at',
    'updated_at',
    'executed_at',
  ],
  properties: {
    session_id: { type: 'string' },
    status: { enum: ['in_progress', 'completed'] },
    modules: stringArray,
    questions: { type: 'array', items: questionSchema },
    answered: stringArray,
    remaining: stringArray,
    required_remaining: stringArray,
    ready: { type: 'boolean' },
    configuration: configurationSchema,
    started_at: { type: 'string' },
    updated_at: { type: 'string' },
    executed_at: nullableString,
  },
} as const satisfies Schema;

function configurationData(configuration: OnboardingConfiguration, taskId: string | null) {
  return {
    settings: Object.fromEntries(configuration.settings.map((change) => [change.name, change.value])),
    ingestion: configuration.ingestion
      ? { urls: configuration.ingestion.urls, start_now: configuration.ingestion.startNow, task_id: taskId }
      : null,
    tools: configuration.tools,
  };
}

/**
 * A session as the onboarding endpoints answer it: its questions (with the answers so far), what
 * remains, and the configuration — generated from the answers while in progress (for review),
 * the executed one once completed.
 */
export function sessionData(onboarding: Onboarding, session: Session) {
  const questions = onboarding.questionsOf(session);
  const answered = questions.filter((question) => Object.hasOwn(session.answers, question.key));
  return {
    session_id: session.sessionId,
    status: session.status,
    modules: session.modules,
    questions: questions.map((question) => {
      const isAnswered = Object.hasOwn(session.answers, question.key);
      return {
        key: question.key,
        module: question.module,
        prompt: question.prompt,
        schema: question.schema,
        required: question.required,
        default: question.default,
        answered: isAnswered,
        ...(isAnswered ? { answer: session.answers[question.key] } : {}),
      };
    }),
    answered: answered.map((question) => question.key),
    remaining: questions.filter((question) => !answered.includes(question)).map((question) => question.key),
    required_remaining: onboarding.remainingOf(session).map((question) => question.key),
    ready: onboarding.remainingOf(session).length === 0,
    configuration: configurationData(
      onboarding.configurationOf(session),
      session.executed?.ingestionTaskId ?? null,
    ),
    started_at: session.startedAt,
    updated_at: session.updatedAt,
    executed_at: session.executed?.at ?? null,
  };
}
