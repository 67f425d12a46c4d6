import type { Config } from '../../config.js';
import type { Conversations } from '../../conversations/conversations.js';
import type { SessionStore } from '../../users/sessions.js';
import type { Users } from '../../users/users.js';
import type { Chat } from '../../chat/chat.js';
import type { Route } from '../route.js';
import { chatRoutes } from './chatRoutes.js';
import type { ParsePool } from '../../parsing/worker/parsePool.js';
import { conversationRoutes } from './conversationRoutes.js';
import { sessionRoutes } from './sessionRoutes.js';
import { createLoginThrottle } from '../../users/loginThrottle.js';
import { settingsRoutes } from './settingsRoutes.js';
import type { Tools } from '../../tools/tools.js';
import { toolRoutes } from './toolRoutes.js';
import type { Settings } from '../../settings/settings.js';
import type { Onboarding } from '../../onboarding/onboarding.js';
import { onboardingRoutes } from './onboardingRoutes.js';

/** The Assistant method API's routes of this build, relative to `/api/method`. */
export function assistantApiRoutes(deps: {
  config: Config;
  version: string;
  users: Users;
  sessions: SessionStore;
  conversations: Conversations;
  tools: Tools;
  chat: Chat;
  parser: Pick<ParsePool, 'run'>;
  settings: Settings;
  onboarding: Onboarding;
}): Route[] {
  return [
    ...sessionRoutes({
      users: deps.users,
      sessions: deps.sessions,
      cookieSecure: deps.config.sessionCookieSecure,
      sessionTtlMs: deps.config.sessionTtlMs,
      jwtEnabled: deps.config.jwt !== null,
      throttle: createLoginThrottle({ windowMs: deps.config.loginFailureWindowMs }),
      maxFailures: deps.config.loginMaxFailures,
      maxFailuresPerClient: deps.config.loginMaxFailuresPerClient,
    }),
    ...settingsRoutes({ config: deps.config, version: deps.version, settings: deps.settings }),
    ...onboardingRoutes({ onboarding: deps.onboarding }),
    ...conversationRoutes({ conversations: deps.conversations }),
    ...toolRoutes({ tools: deps.tools }),
    ...chatRoutes({
      chat: deps.chat,
      parser: deps.parser,
      maxFileBytes: deps.config.maxUploadBytes,
      sseKeepAliveMs: deps.config.sseKeepAliveMs,
      maxTokensLimit: deps.config.llmMaxTokens,
      resumeWaitMs: deps.config.chatTurnTimeoutMs,
    }),
  ];
}
