import type { OnboardingCommands } from '../commands/aggregates.js';
import { onboardingEvents } from '../domain/onboarding/events.js';
import type { Reactor } from '../workers/reactors.js';
import type { Onboarding, Session } from './onboarding.js';

/**
 * Carries out executed onboarding sessions when the request that executed one could not (it
 * crashed between recording the execution and applying it). The request normally does it first;
 * repeating it changes nothing, because settings are applied by the session's id and the ingestion
 * task is created with the id the execution recorded.
 */
export function onboardingReactor(deps: { onboarding: Onboarding; commands: OnboardingCommands }): Reactor {
  return {
    name: 'onboarding_execution',
    handles: ['OnboardingExecuted'],
    async react(recorded) {
      const event = onboardingEvents.decode(recorded);
      if (event.type !== 'OnboardingExecuted') return;
      const { state } = await deps.commands.read(event.data.sessionId);
      if (state.status !== 'completed') return;
      const session: Session = state;
      await deps.onboarding.carryOut(session, {
        actorId: `user:${session.owner}`,
        correlationId: recorded.metadata.correlationId,
      });
    },
  };
}
