import type { JsonValue, SettingChange } from '../settings/events.js';
import type { OnboardingConfiguration } from './events.js';
import type { OnboardingModule, Question } from './questions.js';
import { questionsFor } from './questions.js';

/** A tool as onboarding decides about it. */
export interface ToolSummary {
  name: string;
  category: string;
  risk: 'low' | 'medium' | 'high';
}

export interface SessionAnswers {
  modules: readonly OnboardingModule[];
  answers: Readonly<Record<string, JsonValue>>;
}

/** Required questions of the session nobody has answered yet. */
export function remainingRequired(session: SessionAnswers): Question[] {
  return questionsFor(session.modules).filter(
    (question) => question.required && !Object.hasOwn(session.answers, question.key),
  );
}

/** Each question's answer, or its default when unanswered. */
function answerOf(session: SessionAnswers, key: string, fallback: JsonValue): JsonValue {
  if (Object.hasOwn(session.answers, key)) return session.answers[key] ?? null;
  return questionsFor(session.modules).find((question) => question.key === key)?.default ?? fallback;
}

/**
 * The configuration a session's answers make, for review and for execution. Unanswered optional
 * questions take their defaults; settings left null are not touched (an existing value stays).
 * The tools module sets `tools.enabled` and `tools.policy` whole: a tool is on when its category was
 * chosen, and a chosen high-risk tool follows the answer about high-risk tools.
 */
export function generateConfiguration(
  session: SessionAnswers,
  tools: readonly ToolSummary[],
): OnboardingConfiguration {
  const settings: SettingChange[] = [];
  const set = (name: string, value: JsonValue): void => {
    if (value !== null) settings.push({ name, value });
  };
  const has = (module: OnboardingModule): boolean => session.modules.includes(module);

  set('company.name', answerOf(session, 'company_name', null));
  if (has('assistant')) {
    set('assistant.name', answerOf(session, 'assistant.name', null));
    set('assistant.language', answerOf(session, 'assistant.language', null));
    set('assistant.instructions', answerOf(session, 'assistant.instructions', null));
  }

  let toolOutcome: OnboardingConfiguration['tools'] = null;
  if (has('tools')) {
    const categories = (answerOf(session, 'tools.categories', []) as string[]) ?? [];
    const highRisk = answerOf(session, 'tools.high_risk_policy', 'confirm') as 'confirm' | 'disabled';
    const enabled: Record<string, boolean> = {};
    const policy: Record<string, 'confirm' | 'disabled'> = {};
    toolOutcome = { enabled: [], disabled: [], confirm: [] };
    for (const tool of [...tools].sort((a, b) => a.name.localeCompare(b.name))) {
      const on = categories.includes(tool.category);
      enabled[tool.name] = on;
      if (on && tool.risk === 'high') policy[tool.name] = highRisk;
      if (!on || policy[tool.name] === 'disabled') toolOutcome.disabled.push(tool.name);
      else {
        toolOutcome.enabled.push(tool.name);
        if (tool.risk === 'high') toolOutcome.confirm.push(tool.name);
      }
    }
    settings.push({ name: 'tools.enabled', value: enabled }, { name: 'tools.policy', value: policy });
  }

  let ingestion: OnboardingConfiguration['ingestion'] = null;
  if (has('knowledge')) {
    const urls = (answerOf(session, 'knowledge.sources', []) as string[]) ?? [];
    const startNow = answerOf(session, 'knowledge.ingest_now', true) === true;
    if (urls.length > 0) ingestion = { urls, startNow };
  }
  return { settings, ingestion, tools: toolOutcome };
}
