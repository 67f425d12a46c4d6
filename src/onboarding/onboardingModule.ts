import type { OnboardingCommands } from '../commands/aggregates.js';
import { onboardingAggregate } from '../commands/aggregates.js';
import type { ModuleDeclaration, ModuleParts } from '../moduleDeclaration.js';
import type { Onboarding } from './onboarding.js';
import { onboardingReactor } from './onboardingReactor.js';

/** Onboarding sessions: questions per module, then the configuration carried out once. */
export const onboardingModule: ModuleDeclaration = {
  name: 'onboarding',
  aggregates: [onboardingAggregate],
  projections: [],
};

export function onboardingParts(deps: { onboarding: Onboarding; commands: OnboardingCommands }): ModuleParts {
  return { reactors: [onboardingReactor(deps)] };
}
