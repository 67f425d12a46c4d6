import { Fragment } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { describeError, retrieval } from './api';
import { DataTable } from './dataTable';
import { ErrorAlert } from './errorAlert';

interface Health {
  status: string;
  version: string;
}
interface Readiness {
  ready: boolean;
  components: Array<{ name: string; healthy: boolean; detail?: string; message?: string }>;
}
type Stats = Record<string, unknown> & {
  projections?: Array<{ name: string; state: string; position: number; holder: string | null }>;
  tasks_by_status?: Record<string, number>;
};

const SCALARS = [
  'document_count',
  'sources_count',
  'head_position',
  'projections_state',
  'embedding_model',
  'llm_model',
  'reranker_model',
  'collection_name',
  'vector_store_path',
  'api_auth_enabled',
] as const;

/** Liveness, readiness of each component, and the system's statistics, refreshed on demand. */
export function HealthView() {
  const [health, setHealth] = useState<Health | null>(null);
  const [ready, setReady] = useState<Readiness | null>(null);
  const [stats, setStats] = useState<Stats | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [reloads, setReloads] = useState(0);

  useEffect(() => {
    let current = true;
    Promise.all([
      retrieval<Health>('GET', '/health'),
      // Not ready answers 503 with the same body: show it rather than fail.
      fetch('/api/v1/health/ready', { credentials: 'same-origin' }).then(
        (response) => response.json() as Promise<Readiness>,
      ),
      retrieval<Stats>('GET', '/health/stats'),
    ])
      .then(([live, readiness, statistics]) => {
        if (!current) return;
        setHealth(live);
        setReady(readiness);
        setStats(statistics);
        setError(null);
      })
      .catch((failure: unknown) => current && setError(describeError(failure)));
    return () => {
      current = false;
    };
  }, [reloads]);

  return (
    <>
      <h1>Health</h1>
      <button type="button" class="secondary" onClick={() => setReloads((count) => count + 1)}>
        Refresh
      </button>
      <ErrorAlert message={error} />
      {health && (
        <p role="status">
          Status <strong>{health.status}</strong>, version {health.version};{' '}
          {ready ? (ready.ready ? 'ready' : 'not ready') : 'readiness unknown'}.
        </p>
      )}
      {ready && (
        <section aria-labelledby="components-heading">
          <h2 id="components-heading">Components</h2>
          <ul class="plain components">
            {ready.components.map((component) => (
              <li key={component.name} class={component.healthy ? 'ok' : 'error'}>
                <strong>{component.name}</strong>: {component.healthy ? 'healthy' : 'unhealthy'}
                {component.detail || component.message ? ` — ${component.detail ?? component.message}` : ''}
              </li>
            ))}
          </ul>
        </section>
      )}
      {stats && (
        <section aria-labelledby="stats-heading">
          <h2 id="stats-heading">Statistics</h2>
          <dl class="facts">
            {SCALARS.filter((name) => stats[name] !== undefined).map((name) => (
              <Fragment key={name}>
                <dt>{name.replace(/_/g, ' ')}</dt>
                <dd class="wrap">{String(stats[name])}</dd>
              </Fragment>
            ))}
            {stats.tasks_by_status && (
              <>
                <dt>tasks by status</dt>
                <dd>
                  {Object.entries(stats.tasks_by_status)
                    .map(([status, count]) => `${status}: ${count}`)
                    .join(', ') || 'none'}
                </dd>
              </>
            )}
          </dl>
          {stats.projections && (
            <DataTable caption="Projections" columns={['Name', 'State', 'Position', 'Holder']}>
              {stats.projections.map((projection) => (
                <tr key={projection.name}>
                  <td>{projection.name}</td>
                  <td>{projection.state}</td>
                  <td>{projection.position}</td>
                  <td class="wrap">{projection.holder ?? ''}</td>
                </tr>
              ))}
            </DataTable>
          )}
        </section>
      )}
    </>
  );
}
