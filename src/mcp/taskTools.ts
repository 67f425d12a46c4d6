import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { TASKS, type TaskView } from '../projections/tasksProjection.js';
import type { Filter } from '../readStore/readStore.js';
import { actorIdOf } from '../users/users.js';
import type { McpDeps, McpSession } from './mcpContext.js';
import { answered, guarded } from './toolResults.js';

type Args<Shape extends z.ZodRawShape> = z.infer<z.ZodObject<Shape>>;

const STATUSES = ['pending', 'running', 'completed', 'failed', 'cancelled'] as const;

const listInput = {
  status: z.enum(STATUSES).optional().describe('Only tasks in this state'),
  limit: z.number().int().min(1).max(200).default(20),
  all: z
    .boolean()
    .default(false)
    .describe("Everyone's tasks (administrators only; for anyone else, their own whatever this says)"),
};
const taskShape = {
  task_id: z.string(),
  task_type: z.string().describe('What kind of work: ingest_upload, scrape, tool…'),
  status: z.enum(STATUSES),
  progress: z.number().min(0).max(1),
  message: z.string().nullable().describe('Latest progress message'),
  error: z.string().nullable(),
  result: z
    .record(z.string(), z.unknown())
    .nullable()
    .describe("Once completed: an ingestion's result names the document (doc_id)"),
  created_at: z.string(),
  started_at: z.string().nullable(),
  completed_at: z.string().nullable(),
};
const listOutput = {
  tasks: z.array(z.object(taskShape)),
  total: z.number().int().describe('Tasks matching, beyond the limit too'),
};

const taskFields = (task: TaskView) => ({
  task_id: task.id,
  task_type: task.jobType,
  status: task.status,
  progress: task.progress,
  message: task.message,
  error: task.error,
  result: task.result,
  created_at: task.createdAt,
  started_at: task.startedAt,
  completed_at: task.completedAt,
});

/** `list_tasks`: the Retrieval API's /tasks, whose visibility it keeps (one's own; everyone's for admins). */
export function registerTaskTools(server: McpServer, deps: McpDeps, session: McpSession): void {
  server.registerTool(
    'list_tasks',
    {
      title: 'List background tasks',
      description:
        'Your background tasks (ingestions, scrapes, tool calls), newest first, with status and progress (0–1); an administrator may ask for everyone’s. Reads only.',
      inputSchema: listInput,
      outputSchema: listOutput,
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    guarded(session, 'list_tasks', async (args: Args<typeof listInput>) => {
      const { principal } = session;
      const everyone = args.all && principal.admin;
      const filter: Filter = {
        ...(args.status ? { status: args.status } : {}),
        ...(everyone ? {} : { owner: actorIdOf(principal) }),
      };
      const [found, total] = await Promise.all([
        deps.readModels.find<TaskView>(TASKS, { filter, sort: [['sequence', -1]], limit: args.limit }),
        deps.readModels.count(TASKS, filter),
      ]);
      const tasks = found.map(taskFields);
      const text =
        tasks.length === 0
          ? 'No tasks.'
          : tasks
              .map(
                (task) =>
                  `- ${task.task_id} ${task.task_type}: ${task.status} ${Math.round(task.progress * 100)}%${task.message ? ` — ${task.message}` : ''}${task.error ? ` (error: ${task.error})` : ''}`,
              )
              .join('\n');
      return answered({ tasks, total }, `${tasks.length} of ${total} task(s):\n${text}`);
    }),
  );
}
