import type { TestUser } from './assistantUsers.js';
import type { TestApp } from './testApp.js';
import { uploadTextFixtures } from './uploadTextFixtures.js';

type Body = { message: { data: Record<string, unknown> } };

/**
 * One uploaded document and `user`'s request to delete it through `execute_tool`: a high-risk call,
 * so a pending action. Its document and action ids.
 */
export async function requestDocumentDeletion(
  app: TestApp,
  user: TestUser,
): Promise<{ docId: string; actionId: string }> {
  await uploadTextFixtures(app, 'readme.md');
  const execute = (tool: string, params: object) =>
    app.http
      .post('/api/method/assistant.api.execute_tool')
      .set('Authorization', user.authorization)
      .send({ tool_name: tool, params });
  const listed = (await execute('list_documents', {}).expect(200)).body as Body;
  const docId = (listed.message.data['result'] as { documents: Array<{ doc_id: string }> }).documents[0]!
    .doc_id;
  const requested = (await execute('delete_document', { doc_id: docId }).expect(200)).body as Body;
  return { docId, actionId: requested.message.data['action_id'] as string };
}

/**
 * What `user` learns by confirming `actionId` again: refused (409 `action_confirmed`), with the
 * decision and its outcome so far in the error's `detail`.
 */
export async function decidedOutcome(
  app: TestApp,
  user: TestUser,
  actionId: string,
): Promise<Record<string, unknown>> {
  const refused = await app.http
    .post('/api/method/assistant.api.confirm_action')
    .set('Authorization', user.authorization)
    .send({ action_id: actionId })
    .expect(409);
  const error = (refused.body as { message: { error: { type: string; detail: Record<string, unknown> } } })
    .message.error;
  if (error.type !== 'action_confirmed') throw new Error(`expected action_confirmed, got ${error.type}`);
  return error.detail;
}
