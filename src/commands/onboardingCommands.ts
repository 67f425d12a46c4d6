import type { OnboardingCommand } from '../domain/onboarding/commands.js';
import type { OnboardingState } from '../domain/onboarding/decider.js';
import { onboardingDecider } from '../domain/onboarding/decider.js';
import type { OnboardingEvent } from '../domain/onboarding/events.js';
import { onboardingEvents } from '../domain/onboarding/events.js';
import type { EventStore } from '../eventStore/eventStore.js';
import { defineAggregate } from './aggregate.js';
import type { CommandOutcome } from './commandHandler.js';
import { createCommandHandler } from './commandHandler.js';
import type { Caller, Clock } from './context.js';
import { metadataFor } from './context.js';

const onboardingAggregate = defineAggregate({
  category: 'onboarding',
  decider: onboardingDecider,
  events: onboardingEvents,
});

type DataOf<T extends OnboardingCommand['type']> = Extract<OnboardingCommand, { type: T }>['data'];
export type OnboardingOutcome = CommandOutcome<OnboardingEvent, OnboardingState>;

/** The onboarding aggregate's commands (streams `onboarding-<session id>`), stamped from the caller and clock. */
export function createOnboardingCommands(deps: { eventStore: EventStore; clock: Clock }) {
  const handler = createCommandHandler(onboardingAggregate, { eventStore: deps.eventStore });
  function run<T extends OnboardingCommand['type']>(
    type: T,
    data: DataOf<T>,
    caller: Caller,
  ): Promise<OnboardingOutcome> {
    const command = { type, data, metadata: metadataFor(caller, deps.clock) } as OnboardingCommand;
    return handler.handle(data.sessionId, command);
  }
  return {
    start: (data: DataOf<'StartOnboarding'>, caller: Caller) => run('StartOnboarding', data, caller),
    answer: (data: DataOf<'SubmitOnboardingAnswer'>, caller: Caller) =>
      run('SubmitOnboardingAnswer', data, caller),
    execute: (data: DataOf<'ExecuteOnboarding'>, caller: Caller) => run('ExecuteOnboarding', data, caller),
    read: (sessionId: string) => handler.read(sessionId),
  };
}

export type OnboardingCommands = ReturnType<typeof createOnboardingCommands>;
