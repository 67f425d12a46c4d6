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

/** `user` confirms `actionId` through `confirm_action` (200 expected): the answer's data. */
export async function confirmAction(
  app: TestApp,
  user: TestUser,
  actionId: string,
): Promise<Record<string, unknown>> {
  const confirmed = await app.http
    .post('/api/method/assistant.api.confirm_action')
    .set('Authorization', user.authorization)
    .send({ action_id: actionId })
    .expect(200);
  return (confirmed.body as Body).message.data;
}
