import { expect } from 'chai';
import type { OnboardingCommand } from '../../src/domain/onboarding/commands.js';
import { generateConfiguration } from '../../src/domain/onboarding/configuration.js';
import { onboardingDecider } from '../../src/domain/onboarding/decider.js';
import type { OnboardingConfiguration, OnboardingStarted } from '../../src/domain/onboarding/events.js';
import type { JsonValue } from '../../src/domain/settings/events.js';
import { spec } from '../../src/domain/shared/deciderSpec.js';

const metadata = { now: '2026-11-26T10:00:00.000Z', actorId: 'user:alice', correlationId: 'c1' };
const command = <T extends OnboardingCommand['type']>(
  type: T,
  data: Extract<OnboardingCommand, { type: T }>['data'],
): OnboardingCommand => ({ type, data, metadata }) as OnboardingCommand;

const sessionId = 's-1';
const started: Omit<OnboardingStarted, 'metadata'> = {
  type: 'OnboardingStarted',
  data: { sessionId, owner: 'alice', modules: ['knowledge', 'assistant'], companyName: 'Acme' },
};
const answered = (questionKey: string, answer: JsonValue) =>
  ({ type: 'OnboardingAnswerSubmitted', data: { sessionId, questionKey, answer } }) as const;
const complete = [
  started,
  answered('knowledge.sources', ['https://acme.example/faq']),
  answered('assistant.name', 'Aria'),
  answered('assistant.language', 'en'),
];
// What the complete answers make (no tools module: no tool decided).
const configuration: OnboardingConfiguration = {
  settings: [
    { name: 'company.name', value: 'Acme' },
    { name: 'assistant.name', value: 'Aria' },
    { name: 'assistant.language', value: 'en' },
  ],
  ingestion: { urls: ['https://acme.example/faq'], startNow: true },
  tools: null,
};
const execute = (owner = 'alice') =>
  command('ExecuteOnboarding', { sessionId, owner, tools: [], ingestionTaskId: 't-1' });

describe('onboarding decider', () => {
  const onboarding = spec(onboardingDecider);

  it('starts a session once; a retried start is nothing to do', () => {
    const start = command('StartOnboarding', { ...started.data, modules: [...started.data.modules] });
    onboarding.given([]).when(start).then([started]);
    onboarding.given([started]).when(start).then([]);
    onboarding
      .given([started])
      .when(command('StartOnboarding', { ...started.data, modules: ['tools'] }))
      .thenThrows('onboarding_exists');
    onboarding
      .given([])
      .when(command('StartOnboarding', { ...started.data, modules: [] }))
      .thenThrows('no_modules');
  });

  it("records answers to the session's questions only, for its owner only, and not after execution", () => {
    const submit = (questionKey: string, answer: JsonValue, owner = 'alice') =>
      command('SubmitOnboardingAnswer', { sessionId, owner, questionKey, answer });
    onboarding
      .given([started])
      .when(submit('assistant.name', 'Aria'))
      .then([answered('assistant.name', 'Aria')]);
    onboarding
      .given([started, answered('assistant.name', 'Aria')])
      .when(submit('assistant.name', 'Aria'))
      .then([]);
    onboarding
      .given([started])
      .when(submit('tools.categories', ['knowledge']))
      .thenThrows('unknown_question');
    onboarding
      .given([started])
      .when(submit('assistant.name', 'Bob', 'bob'))
      .thenThrows('onboarding_not_found');
    onboarding.given([]).when(submit('assistant.name', 'Aria')).thenThrows('onboarding_not_found');
    onboarding
      .given([
        ...complete,
        { type: 'OnboardingExecuted', data: { sessionId, configuration, ingestionTaskId: 't-1' } },
      ])
      .when(submit('assistant.name', 'Other'))
      .thenThrows('onboarding_completed');
  });

  it('executes once, when every required question is answered, recording the ingestion task id', () => {
    const executed = {
      type: 'OnboardingExecuted',
      data: { sessionId, configuration, ingestionTaskId: 't-1' },
    } as const;
    onboarding.given(complete).when(execute()).then([executed]);
    onboarding
      .given([...complete, executed])
      .when(execute())
      .then([]);
    onboarding.given(complete.slice(0, 3)).when(execute()).thenThrows('onboarding_incomplete');
    onboarding.given(complete).when(execute('bob')).thenThrows('onboarding_not_found');
  });

  it('generates the configuration from answers and defaults, with every tool decided by its category and risk', () => {
    const tools = [
      { name: 'search_knowledge', category: 'knowledge', risk: 'low' as const },
      { name: 'delete_document', category: 'knowledge', risk: 'high' as const },
      { name: 'cancel_task', category: 'tasks', risk: 'medium' as const },
    ];
    const generated = generateConfiguration(
      {
        modules: ['knowledge', 'assistant', 'tools'],
        answers: {
          'assistant.name': 'Aria',
          'knowledge.sources': ['https://a.example'],
          'tools.categories': ['knowledge'],
        },
      },
      tools,
    );
    expect(generated).to.deep.equal({
      settings: [
        { name: 'assistant.name', value: 'Aria' },
        { name: 'assistant.language', value: 'auto' },
        {
          name: 'tools.enabled',
          value: { cancel_task: false, delete_document: true, search_knowledge: true },
        },
        { name: 'tools.policy', value: { delete_document: 'confirm' } },
      ],
      ingestion: { urls: ['https://a.example'], startNow: true },
      tools: {
        enabled: ['delete_document', 'search_knowledge'],
        disabled: ['cancel_task'],
        confirm: ['delete_document'],
      },
    });
    const cautious = generateConfiguration(
      { modules: ['tools'], answers: { 'tools.high_risk_policy': 'disabled' } },
      tools,
    );
    expect(cautious.tools).to.deep.equal({
      enabled: ['cancel_task', 'search_knowledge'],
      disabled: ['delete_document'],
      confirm: [],
    });
  });
});
