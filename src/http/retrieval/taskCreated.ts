import { dateTime } from './schemas.js';

/** What an asynchronous endpoint answers: the task to follow. */
export const taskCreatedSchema = {
  type: 'object',
  required: ['task_id', 'status', 'message', 'created_at'],
  properties: {
    task_id: { type: 'string', format: 'uuid' },
    status: { type: 'string', enum: ['pending'] },
    message: { type: 'string' },
    created_at: dateTime,
  },
} as const;
