/** What the console shows of one background task while it runs and once it ends. */
export interface TaskView {
  status: 'pending' | 'running' | 'completed' | 'failed' | 'cancelled';
  /** 0–1. */
  progress: number;
  /** The stage the last progress report named (receive, parse, embed, …), if any. */
  stage: string | null;
  detail: string | null;
  /** Stages in the order they were reported. */
  stages: string[];
  error: string | null;
}

export const NEW_TASK: TaskView = {
  status: 'pending',
  progress: 0,
  stage: null,
  detail: null,
  stages: [],
  error: null,
};

type Payload = Record<string, unknown>;

const parse = (event: Event): Payload => {
  try {
    return JSON.parse((event as MessageEvent<string>).data) as Payload;
  } catch {
    return {};
  }
};

/** How one task event changes the view. Progress messages read `<stage>: <detail>`. */
function apply(view: TaskView, type: string, data: Payload): TaskView {
  switch (type) {
    case 'TaskStarted':
    case 'TaskResumed':
      return { ...view, status: 'running' };
    case 'TaskProgressed': {
      const message = typeof data['message'] === 'string' ? data['message'] : '';
      const colon = message.indexOf(':');
      const stage = colon > 0 ? message.slice(0, colon) : message || view.stage;
      return {
        ...view,
        status: 'running',
        progress: typeof data['progress'] === 'number' ? data['progress'] : view.progress,
        stage,
        detail: colon > 0 ? message.slice(colon + 1).trim() : null,
        stages: stage && !view.stages.includes(stage) ? [...view.stages, stage] : view.stages,
      };
    }
    case 'TaskCompleted':
      return { ...view, status: 'completed', progress: 1, stage: 'done', detail: null };
    case 'TaskFailed':
      return { ...view, status: 'failed', error: String(data['error'] ?? 'failed') };
    case 'TaskCancelled':
      return { ...view, status: 'cancelled' };
    default:
      return view;
  }
}

const EVENT_TYPES = [
  'TaskCreated',
  'TaskStarted',
  'TaskResumed',
  'TaskYielded',
  'TaskProgressed',
  'TaskCompleted',
  'TaskFailed',
  'TaskCancelled',
];
const FINAL: ReadonlySet<string> = new Set(['completed', 'failed', 'cancelled']);

/**
 * Follows a task's event stream (`/api/v1/tasks/{id}/events`; the session cookie goes with it),
 * calling `onChange` with each new view, until the task ends. Returns a function that stops.
 */
export function followTask(taskId: string, onChange: (view: TaskView) => void): () => void {
  const source = new EventSource(`/api/v1/tasks/${encodeURIComponent(taskId)}/events`, {
    withCredentials: true,
  });
  let view = NEW_TASK;
  for (const type of EVENT_TYPES) {
    source.addEventListener(type, (event) => {
      view = apply(view, type, parse(event));
      onChange(view);
      if (FINAL.has(view.status)) source.close();
    });
  }
  // The browser reconnects by itself (Last-Event-ID: no event is lost); a stream that ended
  // answers 204, which closes it.
  return () => source.close();
}
