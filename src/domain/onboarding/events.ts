import type { Event } from '../shared/index.js';
import { defineEvents } from '../shared/index.js';
import type { JsonValue, SettingChange } from '../settings/events.js';
import type { OnboardingModule } from './questions.js';

/**
 * What executing a session does, decided from its answers: settings to apply (with source
 * `onboarding`), pages to ingest, and what became of each tool (for review, and for the record).
 */
export interface OnboardingConfiguration {
  settings: SettingChange[];
  ingestion: { urls: string[]; startNow: boolean } | null;
  tools: { enabled: string[]; disabled: string[]; confirm: string[] } | null;
}

/** `owner` (a user name) began setting up `modules`; `companyName` pre-fills that answer. */
export type OnboardingStarted = Event<
  'OnboardingStarted',
  { sessionId: string; owner: string; modules: OnboardingModule[]; companyName: string | null }
>;
/** An answer, already checked against its question's schema; a later one to the same key replaces it. */
export type OnboardingAnswerSubmitted = Event<
  'OnboardingAnswerSubmitted',
  { sessionId: string; questionKey: string; answer: JsonValue }
>;
/**
 * The session's configuration was executed, once: it records what was decided and the id of the
 * ingestion task (null when there is none), so every effect can be carried out again harmlessly
 * (settings by the session's id, the task by its own).
 */
export type OnboardingExecuted = Event<
  'OnboardingExecuted',
  { sessionId: string; configuration: OnboardingConfiguration; ingestionTaskId: string | null }
>;

export type OnboardingEvent = OnboardingStarted | OnboardingAnswerSubmitted | OnboardingExecuted;

export const onboardingEvents = defineEvents<OnboardingEvent>({
  OnboardingStarted: {},
  OnboardingAnswerSubmitted: {},
  OnboardingExecuted: {},
});
