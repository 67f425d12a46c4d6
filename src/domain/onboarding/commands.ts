import type { Command } from '../shared/index.js';
import type { JsonValue } from '../settings/events.js';
import type { ToolSummary } from './configuration.js';
import type { OnboardingModule } from './questions.js';

/** `owner` is who asks (a user name): a session of someone else is answered as unknown. */
export type StartOnboarding = Command<
  'StartOnboarding',
  { sessionId: string; owner: string; modules: OnboardingModule[]; companyName: string | null }
>;
/** The answer must have been checked against the question's schema (the decider knows keys, not schemas). */
export type SubmitOnboardingAnswer = Command<
  'SubmitOnboardingAnswer',
  { sessionId: string; owner: string; questionKey: string; answer: JsonValue }
>;
/**
 * Executes the session: its configuration is generated from the answers the decider sees and the
 * `tools` the product offers now; `ingestionTaskId` is a fresh id for the ingestion task (used only
 * if this command is the one that executes it).
 */
export type ExecuteOnboarding = Command<
  'ExecuteOnboarding',
  { sessionId: string; owner: string; tools: ToolSummary[]; ingestionTaskId: string }
>;

export type OnboardingCommand = StartOnboarding | SubmitOnboardingAnswer | ExecuteOnboarding;
