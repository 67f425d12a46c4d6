import type { JsonValue } from '../../domain/settings/events.js';
import { ONBOARDING_MODULES } from '../../domain/onboarding/questions.js';
import type { Onboarding } from '../../onboarding/onboarding.js';
import { TASKS } from '../../projections/tasksProjection.js';
import { assistantErrorSchema } from '../errorHandler.js';
import { defineRoute, type Route } from '../route.js';
import { principalOf } from './auth.js';
import { envelope, envelopeSchema } from './envelope.js';
import { sessionData, sessionSchema } from './onboardingWire.js';
import { asHttpError } from './settingsRoutes.js';

const TAGS = ['Assistant: onboarding'];
const sessionId = {
  type: 'string',
  minLength: 1,
  maxLength: 128,
  description: 'Id of the onboarding session',
} as const;
const notFound = { description: 'No such session of the current user', schema: assistantErrorSchema };
const invalid = {
  description: 'Invalid parameters, an unknown question or an answer its schema refuses',
  schema: assistantErrorSchema,
};

/**
 * Onboarding: a session of questions per module, answers checked one by one, a configuration to
 * review, and its execution — once. Every endpoint acts on the current user's sessions only:
 * another user's session is answered 404, as an unknown one is.
 */
export function onboardingRoutes(deps: { onboarding: Onboarding }): Route[] {
  const { onboarding } = deps;
  return [
    defineRoute({
      method: 'post',
      path: '/assistant.api.start_onboarding',
      operationId: 'assistantStartOnboarding',
      summary: 'Start an onboarding session: its questions per module',
      tags: TAGS,
      rateLimit: 'chat',
      body: {
        contentType: 'application/json',
        schema: {
          type: 'object',
          properties: {
            modules: {
              type: 'array',
              items: { enum: [...ONBOARDING_MODULES] },
              minItems: 1,
              uniqueItems: true,
              default: [...ONBOARDING_MODULES],
              description: 'Modules to set up (default: all)',
            },
            company_name: {
              type: ['string', 'null'],
              maxLength: 200,
              description: 'Pre-fills the answer to company_name',
            },
          },
        },
      },
      responses: {
        200: { description: 'The new session', schema: envelopeSchema(sessionSchema) },
        422: invalid,
      },
      async handle({ body, caller, koa }) {
        const modules = ONBOARDING_MODULES.filter((module) =>
          (body.modules ?? ONBOARDING_MODULES).includes(module),
        );
        const companyName = body.company_name?.trim() || null;
        const started = await onboarding.start(principalOf(koa).name, modules, companyName, caller);
        return { body: envelope(sessionData(onboarding, started.session)), position: started.position };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/assistant.api.submit_onboarding_answer',
      operationId: 'assistantSubmitOnboardingAnswer',
      summary: "Answer one of the session's questions (a new answer replaces the previous one)",
      tags: TAGS,
      rateLimit: 'chat',
      body: {
        contentType: 'application/json',
        schema: {
          type: 'object',
          required: ['session_id', 'question_key', 'answer'],
          properties: {
            session_id: sessionId,
            question_key: { type: 'string', minLength: 1, maxLength: 64 },
            answer: { description: "Any JSON value; checked against the question's schema" },
          },
        },
      },
      responses: {
        200: { description: 'The session with the answer', schema: envelopeSchema(sessionSchema) },
        404: notFound,
        409: { description: 'The session was executed already', schema: assistantErrorSchema },
        422: invalid,
      },
      async handle({ body, caller, koa }) {
        const owner = principalOf(koa).name;
        try {
          const answered = await onboarding.answer(
            owner,
            body.session_id,
            body.question_key,
            body.answer as JsonValue,
            caller,
          );
          return { body: envelope(sessionData(onboarding, answered.session)), position: answered.position };
        } catch (error) {
          throw asHttpError(error);
        }
      },
    }),
    defineRoute({
      method: 'get',
      path: '/assistant.api.get_onboarding_status',
      operationId: 'assistantGetOnboardingStatus',
      summary: 'Where a session stands: answered, remaining, and the configuration it makes',
      tags: TAGS,
      rateLimit: 'chat',
      query: { type: 'object', required: ['session_id'], properties: { session_id: sessionId } },
      responses: {
        200: { description: 'The session', schema: envelopeSchema(sessionSchema) },
        404: notFound,
        422: invalid,
      },
      async handle({ query, koa }) {
        const session = await onboarding.status(principalOf(koa).name, query.session_id);
        return { body: envelope(sessionData(onboarding, session)) };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/assistant.api.execute_onboarding_configuration',
      operationId: 'assistantExecuteOnboardingConfiguration',
      summary: "Apply the session's configuration: settings, ingestion, tools — once",
      description:
        'Records the execution once (a repeated or concurrent request answers the same session and starts nothing new): the settings change with source `onboarding`, the pages are scraped by one background task (`configuration.ingestion.task_id`), and the tools are switched on or off.',
      tags: TAGS,
      rateLimit: 'chat',
      readAfterWrite: [TASKS],
      body: {
        contentType: 'application/json',
        form: true,
        schema: { type: 'object', required: ['session_id'], properties: { session_id: sessionId } },
      },
      responses: {
        200: { description: 'The completed session', schema: envelopeSchema(sessionSchema) },
        404: notFound,
        409: {
          description: 'Required questions are unanswered (`required_remaining` of get_onboarding_status)',
          schema: assistantErrorSchema,
        },
        422: invalid,
      },
      async handle({ body, caller, koa }) {
        const executed = await onboarding.execute(principalOf(koa).name, body.session_id, caller);
        return { body: envelope(sessionData(onboarding, executed.session)), position: executed.position };
      },
    }),
  ];
}
