import type { Caller } from '../commands/context.js';
import type { OnboardingCommands, TaskCommands } from '../commands/aggregates.js';
import type { ToolSummary } from '../domain/onboarding/configuration.js';
import { generateConfiguration, remainingRequired } from '../domain/onboarding/configuration.js';
import type { OnboardingState } from '../domain/onboarding/decider.js';
import type { OnboardingConfiguration } from '../domain/onboarding/events.js';
import type { OnboardingModule, Question } from '../domain/onboarding/questions.js';
import { questionsFor } from '../domain/onboarding/questions.js';
import type { JsonValue } from '../domain/settings/events.js';
import { NotFoundError } from '../domain/shared/index.js';
import { SCRAPE_JOB, type ScrapeTaskInput } from '../knowledge/scrapeJob.js';
import type { Settings } from '../settings/settings.js';
import {
  createValidatorFactory,
  describeIssues,
  issuesOf,
  ValidationFailedError,
} from '../settings/validation.js';
import { createTask } from '../commands/newTask.js';

export type Session = Exclude<OnboardingState, { status: 'none' }>;

/** Seconds an onboarding scrape allows each URL (the retrieval API's default). */
const SCRAPE_TIMEOUT_SECONDS = 30;

/**
 * Onboarding sessions of the Assistant API's users: questions per module, answers checked against
 * each question's JSON schema, and the execution of the configuration they make — once, however
 * often or concurrently it is asked for. Sessions are read by folding their own short stream (as
 * commands do), so a status always shows the session's latest answer.
 */
export function createOnboarding(deps: {
  commands: OnboardingCommands;
  settings: Settings;
  tasks: TaskCommands;
  /** The tools the registry offers, which the tools module switches on and off. */
  tools: () => readonly ToolSummary[];
  newId: () => string;
}) {
  const { commands, settings, tasks } = deps;
  const compile = createValidatorFactory();
  const validators = new Map<string, ReturnType<typeof compile>>();
  const validatorOf = (question: Question) => {
    let validate = validators.get(question.key);
    if (!validate) {
      validate = compile(question.schema);
      validators.set(question.key, validate);
    }
    return validate;
  };

  /** The owner's session; anyone else's is unknown (404), as one that never existed. */
  async function owned(owner: string, sessionId: string): Promise<Session> {
    const { state } = await commands.read(sessionId);
    if (state.status === 'none' || state.owner !== owner) {
      throw new NotFoundError('onboarding_not_found', `Onboarding session ${sessionId} does not exist`);
    }
    return state;
  }

  /**
   * Carries out an executed session's configuration: its settings (by the session's id) and its
   * ingestion task (by its recorded id). Each is done at most once whoever calls this and however
   * often — the request that executed, a repeated execute, or the reactor after a crash.
   */
  async function carryOut(session: Session, caller: Caller): Promise<number> {
    const executed = session.executed;
    if (!executed) return 0;
    let position = 0;
    if (executed.configuration.settings.length > 0) {
      const applied = await settings.apply(
        session.sessionId,
        executed.configuration.settings,
        'onboarding',
        caller,
      );
      position = Math.max(position, applied.position);
    }
    const { ingestion } = executed.configuration;
    if (executed.ingestionTaskId && ingestion) {
      const input: ScrapeTaskInput = {
        urls: ingestion.urls,
        timeoutSeconds: SCRAPE_TIMEOUT_SECONDS,
        skipDuplicates: true,
        actorId: `user:${session.owner}`,
        correlationId: caller.correlationId,
      };
      const created = await createTask(tasks, SCRAPE_JOB, { ...input }, caller, {
        taskId: executed.ingestionTaskId,
        owner: `user:${session.owner}`,
      });
      position = Math.max(position, created.position);
    }
    return position;
  }

  return {
    /** The configuration the session's answers make now (what executing it would do). */
    configurationOf(session: Session): OnboardingConfiguration {
      return session.executed?.configuration ?? generateConfiguration(session, deps.tools());
    },
    questionsOf: (session: Session) => questionsFor(session.modules),
    remainingOf: (session: Session) => remainingRequired(session),

    async start(owner: string, modules: OnboardingModule[], companyName: string | null, caller: Caller) {
      const sessionId = deps.newId();
      const outcome = await commands.execute(
        'StartOnboarding',
        { sessionId, owner, modules, companyName },
        caller,
      );
      return { session: outcome.state as Session, position: outcome.position };
    },

    status: owned,

    /**
     * Records an answer after checking the question is one of the session's and the answer fits its
     * schema (`ValidationFailedError` naming `question_key` or the answer's bad field otherwise).
     */
    async answer(owner: string, sessionId: string, questionKey: string, answer: JsonValue, caller: Caller) {
      const session = await owned(owner, sessionId);
      const question = questionsFor(session.modules).find((candidate) => candidate.key === questionKey);
      if (!question) {
        const keys = questionsFor(session.modules).map((candidate) => candidate.key);
        throw new ValidationFailedError('unknown_question', `This session asks no question ${questionKey}`, [
          { field: 'question_key', message: `is not a question of this session (${keys.join(', ')})` },
        ]);
      }
      const validate = validatorOf(question);
      if (!validate(answer)) {
        const issues = issuesOf('answer', validate.errors);
        throw new ValidationFailedError(
          'validation_error',
          `Invalid answer to ${questionKey}: ${describeIssues(issues)}`,
          issues,
        );
      }
      const outcome = await commands.execute(
        'SubmitOnboardingAnswer',
        { sessionId, owner, questionKey, answer },
        caller,
      );
      return { session: outcome.state as Session, position: outcome.position };
    },

    /**
     * Executes the session's configuration. The first execution records `OnboardingExecuted` (the
     * event store's expected version lets one of concurrent requests win; the others find it
     * executed); every call then carries out what was recorded, which is harmless when done already.
     */
    async execute(owner: string, sessionId: string, caller: Caller) {
      await owned(owner, sessionId);
      const tools = deps.tools().map(({ name, category, risk }) => ({ name, category, risk }));
      const outcome = await commands.execute(
        'ExecuteOnboarding',
        { sessionId, owner, tools, ingestionTaskId: deps.newId() },
        caller,
      );
      const executed = outcome.state as Session;
      const position = Math.max(outcome.position, await carryOut(executed, caller));
      return { session: executed, position };
    },

    carryOut,
  };
}

export type Onboarding = ReturnType<typeof createOnboarding>;
