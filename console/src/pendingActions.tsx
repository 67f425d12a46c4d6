import { useEffect, useState } from 'preact/hooks';
import { assistant, describeError } from './api';
import type { PendingAction, ToolOutcome } from './wire';
import { ErrorAlert } from './errorAlert';

type Decision =
  { state: 'open' } | { state: 'busy' } | { state: 'done'; text: string } | { state: 'failed'; text: string };

const describeOutcome = (status: number, outcome: ToolOutcome): string => {
  if (status === 202) return 'Approved; it is still running.';
  if (!outcome.success) return `Approved, but it failed: ${outcome.error?.message ?? 'no reason given'}`;
  return `Approved and executed: ${JSON.stringify(outcome.result)}`;
};

/**
 * One action that waits for confirmation, with Approve and Reject: approving runs it (once) and
 * shows its outcome; rejecting drops it. `onDecided` lets the owner refresh what it shows.
 */
export function ActionDecision(props: {
  actionId: string;
  summary: string;
  canConfirm?: boolean;
  onDecided?: () => void;
}) {
  const [decision, setDecision] = useState<Decision>({ state: 'open' });
  const decide = async (approve: boolean): Promise<void> => {
    setDecision({ state: 'busy' });
    try {
      if (approve) {
        const { status, data } = await assistant<ToolOutcome>('POST', 'confirm_action', {
          body: { action_id: props.actionId },
        });
        setDecision({ state: 'done', text: describeOutcome(status, data) });
      } else {
        await assistant('POST', 'reject_action', {
          body: { action_id: props.actionId, reason: 'Rejected in the web console' },
        });
        setDecision({ state: 'done', text: 'Rejected: nothing was run.' });
      }
      props.onDecided?.();
    } catch (error) {
      setDecision({ state: 'failed', text: describeError(error) });
    }
  };
  const labelled = `action-${props.actionId}`;
  return (
    <div class="pending" role="group" aria-labelledby={labelled}>
      <p id={labelled}>
        <strong>Waiting for confirmation:</strong> <span dir="auto">{props.summary}</span>
      </p>
      {decision.state === 'done' || decision.state === 'failed' ? (
        <p role="status" class={decision.state === 'failed' ? 'error' : 'ok'}>
          {decision.text}
        </p>
      ) : (
        <div class="actions">
          <button
            type="button"
            disabled={decision.state === 'busy' || props.canConfirm === false}
            onClick={() => void decide(true)}
          >
            Approve
          </button>
          <button
            type="button"
            class="secondary"
            disabled={decision.state === 'busy'}
            onClick={() => void decide(false)}
          >
            Reject
          </button>
          {props.canConfirm === false && <span class="hint">Another person must approve this one.</span>}
        </div>
      )}
    </div>
  );
}

export const summaryOf = (action: Pick<PendingAction, 'tool_name' | 'params'>): string =>
  `${action.tool_name} ${JSON.stringify(action.params)}`;

/** Every action waiting for the signed-in user's decision (requested by them or theirs to approve). */
export function PendingActions(props: { refreshKey?: number }) {
  const [actions, setActions] = useState<PendingAction[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [reloads, setReloads] = useState(0);
  useEffect(() => {
    let current = true;
    assistant<{ actions: PendingAction[] }>('GET', 'list_pending_actions', { query: { page_size: 50 } })
      .then(({ data }) => current && (setActions(data.actions), setError(null)))
      .catch((failure: unknown) => current && setError(describeError(failure)));
    return () => {
      current = false;
    };
  }, [props.refreshKey, reloads]);

  return (
    <section aria-labelledby="pending-heading" class="panel">
      <h2 id="pending-heading">Pending actions</h2>
      <button type="button" class="secondary" onClick={() => setReloads((count) => count + 1)}>
        Refresh pending actions
      </button>
      <ErrorAlert message={error} />
      {actions && actions.length === 0 && <p>Nothing waits for confirmation.</p>}
      {actions && actions.length > 0 && (
        <ul class="plain">
          {actions.map((action) => (
            <li key={action.action_id}>
              <ActionDecision
                actionId={action.action_id}
                summary={`${summaryOf(action)} — requested by ${action.requested_by}, ${action.risk_level} risk`}
                canConfirm={action.can_confirm}
              />
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
