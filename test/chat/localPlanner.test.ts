import { expect } from 'chai';
import { planLocalCall } from '../../src/chat/localPlanner.js';

const ALL = new Set(['query_knowledge', 'list_documents', 'list_tasks', 'knowledge_stats']);
const toolFor = (message: string, available: ReadonlySet<string> = ALL) =>
  planLocalCall(message, available)?.name ?? null;

describe('local-mode tool choice', () => {
  it('lists documents, tasks or statistics only when asked for them', () => {
    expect(toolFor('show me the documents')).to.equal('list_documents');
    expect(toolFor('List all files')).to.equal('list_documents');
    expect(toolFor('Which documents do you have?')).to.equal('list_documents');
    expect(toolFor('اعرض قائمة المستندات')).to.equal('list_documents');
    expect(toolFor('list my tasks')).to.equal('list_tasks');
    expect(toolFor('Are my tasks done?')).to.equal('list_tasks');
    expect(toolFor('How many documents are there?')).to.equal('knowledge_stats');
    expect(toolFor('stats please')).to.equal('knowledge_stats');
  });

  it('takes any other message, questions about documents included, as a question for the knowledge base', () => {
    for (const message of [
      'What do the documents say about erosion?',
      'Which river has the most turbidity?',
      'How do I install the toolkit?',
      'ما هي متطلبات التثبيت؟',
    ]) {
      expect(planLocalCall(message, ALL), message).to.deep.equal({
        name: 'query_knowledge',
        arguments: { question: message },
      });
    }
  });

  it('chooses only among the tools it may use, and nothing when none fits', () => {
    expect(toolFor('show me the documents', new Set(['query_knowledge']))).to.equal('query_knowledge');
    expect(toolFor('How do I install it?', new Set(['list_tasks']))).to.equal(null);
  });
});
