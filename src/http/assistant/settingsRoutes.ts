import type { Config } from '../../config.js';
import { snakeCase } from '../snakeCase.js';
import type { JsonValue } from '../../domain/settings/events.js';
import type { Settings } from '../../settings/settings.js';
import { ValidationFailedError } from '../../settings/validation.js';
import { defineRoute, type Route } from '../route.js';
import { assistantErrorSchema } from '../errorHandler.js';
import { HttpError } from '../httpError.js';
import { principalOf, requireAdmin } from './auth.js';
import { envelope, envelopeSchema } from './envelope.js';

export interface SettingsRouteDeps {
  config: Config;
  version: string;
  settings: Settings;
}

/** A failed schema check as a 422 naming each field of the request body. */
export function asHttpError(error: unknown): unknown {
  if (!(error instanceof ValidationFailedError)) return error;
  const issues = error.issues.map((issue) => ({ location: 'body' as const, ...issue }));
  return new HttpError(422, error.code, error.message, issues);
}

/** The assistant's settings as get_settings shows them: effective values, tools, and who set what. */
async function assistantSection(settings: Settings): Promise<Record<string, unknown>> {
  const [effective, all, tools] = await Promise.all([
    settings.assistantSettings(),
    settings.all(),
    settings.toolPolicies(),
  ]);
  return {
    persona: effective.persona,
    language: effective.language,
    company_name: effective.companyName,
    system_prompt: effective.systemPrompt,
    chat: { max_tokens: effective.maxTokens },
    tools: tools.map((tool) => ({
      name: tool.name,
      category: tool.category,
      risk_level: tool.risk,
      policy: tool.policy,
      approval: tool.approval,
    })),
    values: all.values,
    changes: Object.fromEntries(
      Object.entries(all.set).map(([name, set]) => [
        name,
        { value: set.value, changed_by: set.changedBy, changed_at: set.changedAt, source: set.source },
      ]),
    ),
  };
}

const MASK = '********';
/** Settings whose values are credentials: shown as set or not, never as they are. */
const SECRET_NAME = /(key|keys|token|secret|password)$/i;

/** A URL with its user name and password masked (database URLs carry them). */
function maskUrl(value: string): string {
  if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(value)) return value;
  try {
    const url = new URL(value);
    if (!url.username && !url.password) return value;
    url.username = url.username ? MASK : '';
    url.password = url.password ? MASK : '';
    return url.toString();
  } catch {
    return value;
  }
}

/** The configuration with snake_case names and every credential masked. */
function maskedSettings(value: unknown, name = ''): unknown {
  if (SECRET_NAME.test(name)) {
    if (Array.isArray(value)) return value.map(() => MASK);
    return value === null || value === '' ? value : MASK;
  }
  if (typeof value === 'string') return maskUrl(value);
  if (Array.isArray(value)) return value.map((item) => maskedSettings(item));
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => [snakeCase(key), maskedSettings(item, key)]),
    );
  }
  return value;
}

/** What a client may know of the configuration: who it is, limits, which models, how to log in. */
async function clientConfig(deps: SettingsRouteDeps): Promise<Record<string, unknown>> {
  const { config } = deps;
  const [assistant, tools] = await Promise.all([
    deps.settings.assistantSettings(),
    deps.settings.toolPolicies(),
  ]);
  return {
    // The persona a client shows, and the tools it may offer; instructions and policies stay admin-only.
    assistant: {
      name: assistant.persona.name,
      language: assistant.language,
      company_name: assistant.companyName,
      max_tokens: assistant.maxTokens,
      enabled_tools: tools.filter((tool) => tool.policy !== 'disabled').map((tool) => tool.name),
    },
    version: deps.version,
    models: {
      llm: config.llmModel ?? 'local-extractive',
      vision: config.visionModel !== null,
      embedding: config.embeddingModel ?? 'local-hashed-ngrams-384',
      reranker: config.reranker,
    },
    limits: {
      max_json_bytes: config.maxJsonBytes,
      max_upload_bytes: config.maxUploadBytes,
      upload_max_files: config.uploadMaxFiles,
    },
    auth: { session: true, api_key: true, jwt: config.jwt !== null },
  };
}

const anyObject = { type: 'object', additionalProperties: true } as const;

/**
 * `get_config` (any user), `get_settings` and `update_settings` (administrators). Both reads join
 * the configuration (environment variables, credentials masked) and the assistant's settings
 * aggregate, which onboarding, the admin CLI and `update_settings` change.
 */
export function settingsRoutes(deps: SettingsRouteDeps): Route[] {
  return [
    defineRoute({
      method: 'get',
      path: '/assistant.api.get_config',
      operationId: 'assistantGetConfig',
      summary: 'A client-safe subset of the configuration, and who is asking',
      tags: ['Assistant: settings'],
      responses: {
        200: {
          description: 'The configuration a client may know',
          schema: envelopeSchema({
            type: 'object',
            required: ['version', 'user', 'assistant', 'models', 'limits', 'auth'],
            properties: {
              version: { type: 'string' },
              assistant: {
                type: 'object',
                required: ['name', 'language', 'company_name', 'max_tokens', 'enabled_tools'],
                properties: {
                  name: { type: 'string' },
                  language: { enum: ['en', 'ar', 'auto'] },
                  company_name: { type: ['string', 'null'] },
                  max_tokens: { type: 'integer' },
                  enabled_tools: { type: 'array', items: { type: 'string' } },
                },
              },
              user: {
                type: 'object',
                required: ['name', 'admin', 'auth_method'],
                properties: {
                  name: { type: 'string' },
                  admin: { type: 'boolean' },
                  auth_method: { enum: ['session', 'api_key', 'jwt'] },
                },
              },
              models: anyObject,
              limits: anyObject,
              auth: anyObject,
            },
          }),
        },
      },
      async handle({ koa }) {
        const principal = principalOf(koa);
        return {
          body: envelope({
            ...(await clientConfig(deps)),
            user: { name: principal.name, admin: principal.admin, auth_method: principal.via },
          }),
        };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/assistant.api.get_settings',
      operationId: 'assistantGetSettings',
      summary: 'The full settings, credentials masked (administrators only)',
      tags: ['Assistant: settings'],
      responses: {
        200: {
          description: 'Every setting, with credentials masked',
          schema: envelopeSchema({
            type: 'object',
            required: ['settings', 'source', 'assistant'],
            properties: {
              settings: anyObject,
              source: { const: 'configuration', description: 'Where `settings` come from' },
              assistant: anyObject,
            },
          }),
        },
        403: { description: 'The caller is not an administrator', schema: assistantErrorSchema },
      },
      async handle({ koa }) {
        requireAdmin(principalOf(koa), 'read the full settings');
        return {
          body: envelope({
            settings: maskedSettings(deps.config),
            source: 'configuration',
            assistant: maskedSettings(await assistantSection(deps.settings)),
          }),
        };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/assistant.api.update_settings',
      operationId: 'assistantUpdateSettings',
      summary: "Change the assistant's settings (administrators only)",
      description:
        'Not in the specification: the admin counterpart of `archivist settings set`. `settings` maps setting names (assistant.name, assistant.tone, assistant.instructions, assistant.language, company.name, tools.enabled, tools.policy, tools.approval, chat.max_tokens) to values; null returns one to its default. All are checked before any is recorded, and recorded as one event.',
      tags: ['Assistant: settings'],
      body: {
        contentType: 'application/json',
        schema: {
          type: 'object',
          required: ['settings'],
          properties: { settings: { type: 'object', minProperties: 1, maxProperties: 32 } },
        },
      },
      responses: {
        200: {
          description: 'The settings after the change (as get_settings shows them)',
          schema: envelopeSchema({
            type: 'object',
            required: ['assistant'],
            properties: { assistant: anyObject },
          }),
        },
        403: { description: 'The caller is not an administrator', schema: assistantErrorSchema },
        422: { description: 'An unknown setting or an invalid value', schema: assistantErrorSchema },
      },
      async handle({ body, caller, koa }) {
        requireAdmin(principalOf(koa), 'change the settings');
        const changes = Object.entries(body.settings as Record<string, JsonValue>).map(([name, value]) => ({
          name,
          value,
        }));
        try {
          // The request's id makes the change one application: a replay of the same one is no change.
          await deps.settings.apply(`api-${caller.correlationId}`, changes, 'api', caller);
        } catch (error) {
          throw asHttpError(error);
        }
        return { body: envelope({ assistant: maskedSettings(await assistantSection(deps.settings)) }) };
      },
    }),
  ];
}
