import type { Decider, EventDraft } from '../shared/index.js';
import { InvalidStateError, NotFoundError, RuleViolationError } from '../shared/index.js';
import { deepEqual } from '../shared/deepEqual.js';
import type { JsonValue } from '../settings/events.js';
import type { OnboardingCommand } from './commands.js';
import { generateConfiguration, remainingRequired } from './configuration.js';
import type { OnboardingConfiguration, OnboardingEvent } from './events.js';
import type { OnboardingModule } from './questions.js';
import { questionsFor } from './questions.js';

export type OnboardingStatus = 'in_progress' | 'completed';

export type OnboardingState =
  | { status: 'none' }
  | {
      status: OnboardingStatus;
      sessionId: string;
      owner: string;
      modules: OnboardingModule[];
      companyName: string | null;
      answers: Record<string, JsonValue>;
      startedAt: string;
      updatedAt: string;
      executed: {
        at: string;
        configuration: OnboardingConfiguration;
        ingestionTaskId: string | null;
      } | null;
    };

type Draft = EventDraft<OnboardingEvent>;
type Existing = Exclude<OnboardingState, { status: 'none' }>;

/** The session when `owner` owns it; anyone else's is as unknown as one that never existed. */
function owned(state: OnboardingState, sessionId: string, owner: string): Existing {
  if (state.status === 'none' || state.owner !== owner) {
    throw new NotFoundError('onboarding_not_found', `Onboarding session ${sessionId} does not exist`);
  }
  return state;
}

function decide(command: OnboardingCommand, state: OnboardingState): Draft[] {
  const { sessionId, owner } = command.data;
  switch (command.type) {
    case 'StartOnboarding': {
      const { modules, companyName } = command.data;
      if (state.status !== 'none') {
        // A retried start is nothing to do; anything else is a clash of ids.
        if (state.owner === owner && deepEqual(state.modules, modules) && state.companyName === companyName) {
          return [];
        }
        throw new InvalidStateError('onboarding_exists', `Onboarding session ${sessionId} exists already`);
      }
      if (modules.length === 0) {
        throw new RuleViolationError('no_modules', 'An onboarding session sets up at least one module');
      }
      return [{ type: 'OnboardingStarted', data: { sessionId, owner, modules, companyName } }];
    }
    case 'SubmitOnboardingAnswer': {
      const session = owned(state, sessionId, owner);
      const { questionKey, answer } = command.data;
      if (!questionsFor(session.modules).some((question) => question.key === questionKey)) {
        throw new RuleViolationError(
          'unknown_question',
          `Onboarding session ${sessionId} asks no question ${questionKey}`,
        );
      }
      if (session.status === 'completed') {
        throw new InvalidStateError(
          'onboarding_completed',
          `Onboarding session ${sessionId} was executed; its answers can no longer change`,
        );
      }
      if (Object.hasOwn(session.answers, questionKey) && deepEqual(session.answers[questionKey], answer)) {
        return [];
      }
      return [{ type: 'OnboardingAnswerSubmitted', data: { sessionId, questionKey, answer } }];
    }
    case 'ExecuteOnboarding': {
      const session = owned(state, sessionId, owner);
      // Executed already (by this request retried, or by a concurrent one): nothing more to do.
      if (session.status === 'completed') return [];
      const remaining = remainingRequired(session).map((question) => question.key);
      if (remaining.length > 0) {
        throw new InvalidStateError(
          'onboarding_incomplete',
          `Onboarding session ${sessionId} needs answers to ${remaining.join(', ')} first`,
          { remaining },
        );
      }
      // Generated here, from the answers this decision sees: an answer that lands between a read and
      // the append makes the append conflict and the decision be taken again with it.
      const configuration = generateConfiguration(session, command.data.tools);
      const ingestionTaskId = configuration.ingestion?.startNow ? command.data.ingestionTaskId : null;
      return [{ type: 'OnboardingExecuted', data: { sessionId, configuration, ingestionTaskId } }];
    }
  }
}

function evolve(state: OnboardingState, event: OnboardingEvent): OnboardingState {
  if (event.type === 'OnboardingStarted') {
    const { sessionId, owner, modules, companyName } = event.data;
    return {
      status: 'in_progress',
      sessionId,
      owner,
      modules,
      companyName,
      // The company name given at the start is that question's answer until another is submitted.
      answers: companyName === null ? {} : { company_name: companyName },
      startedAt: event.metadata.now,
      updatedAt: event.metadata.now,
      executed: null,
    };
  }
  if (state.status === 'none') return state;
  switch (event.type) {
    case 'OnboardingAnswerSubmitted':
      return {
        ...state,
        answers: { ...state.answers, [event.data.questionKey]: event.data.answer },
        updatedAt: event.metadata.now,
      };
    case 'OnboardingExecuted':
      return {
        ...state,
        status: 'completed',
        updatedAt: event.metadata.now,
        executed: {
          at: event.metadata.now,
          configuration: event.data.configuration,
          ingestionTaskId: event.data.ingestionTaskId,
        },
      };
  }
  return state;
}

export const onboardingDecider: Decider<OnboardingCommand, OnboardingEvent, OnboardingState> = {
  decide,
  evolve,
  initialState: () => ({ status: 'none' }),
};
