import { expect } from 'chai';
import { documentNamed, planLocal, planLocalCall } from '../../src/chat/localPlanner.js';

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

describe('local-mode understanding of people', () => {
  const EVERY = new Set([...ALL, 'search_knowledge', 'delete_document', 'scrape_url']);

  it('answers greetings and questions about itself directly, naming what it can do, in English and Arabic', () => {
    for (const message of [
      'hello',
      'Hi there!',
      'good morning',
      'hello, who are you?',
      'What can you do?',
      'help',
      'مرحبا',
      'السلام عليكم',
      'من أنت؟',
      'ماذا تستطيع أن تفعل؟',
    ]) {
      const plan = planLocal(message, EVERY);
      expect(plan?.kind, message).to.equal('answer');
      expect(plan?.kind === 'answer' && plan.text, message).to.match(
        /answer questions from the knowledge base/,
      );
    }
    const bare = planLocal('hello', new Set(['list_tasks']));
    expect(bare?.kind === 'answer' && bare.text).to.match(/I can show your background tasks\.$/);
  });

  it('takes a greeting followed by a real question as the question', () => {
    expect(planLocal('hi, how do I install pino?', EVERY)).to.deep.equal({
      kind: 'call',
      call: { name: 'query_knowledge', arguments: { question: 'hi, how do I install pino?' } },
    });
    expect(planLocal('help me configure the logger', EVERY)?.kind).to.equal('call');
  });

  it('turns "delete/remove the document about X" into a deletion of X, in English and Arabic', () => {
    const cases: Array<[string, string]> = [
      ['Delete the document about pino', 'pino'],
      ['remove the file called "Quarry Guide".', 'Quarry Guide'],
      ['please delete document Koa middleware', 'Koa middleware'],
      ['احذف المستند عن التثبيت', 'التثبيت'],
      ['امسح الملف بعنوان «دليل المستخدم»', 'دليل المستخدم'],
    ];
    for (const [message, subject] of cases) {
      expect(planLocal(message, EVERY), message).to.deep.equal({ kind: 'delete', subject });
    }
    // Without the tools a deletion needs, it is a question like any other.
    expect(planLocal('Delete the document about pino', ALL)?.kind).to.equal('call');
  });

  it('adds a page by its URL with the scrape tool, in English and Arabic', () => {
    for (const message of [
      'Add this page https://example.com/docs/install.html',
      'please ingest https://example.com/a?b=1.',
      'أضف هذه الصفحة https://example.com/ar/guide',
    ]) {
      const plan = planLocal(message, EVERY);
      expect(plan?.kind === 'call' && plan.call.name, message).to.equal('scrape_url');
    }
    expect(planLocal('please ingest https://example.com/a?b=1.', EVERY)).to.deep.equal({
      kind: 'call',
      call: { name: 'scrape_url', arguments: { url: 'https://example.com/a?b=1' } },
    });
    // A URL in a question is not a request to add it.
    expect(planLocal('What does https://example.com/x say about limits?', EVERY)).to.deep.include({
      kind: 'call',
    });
    const question = planLocal('What does https://example.com/x say about limits?', EVERY);
    expect(question?.kind === 'call' && question.call.name).to.equal('query_knowledge');
  });

  it('picks the document a deletion names by its title first, else the best search result', () => {
    const results = [
      { doc_id: 'd1', title: 'Logging overview' },
      { doc_id: 'd2', title: 'Pino  Logger guide' },
    ];
    expect(documentNamed('pino logger', results)).to.deep.equal({
      doc_id: 'd2',
      title: 'Pino  Logger guide',
    });
    expect(documentNamed('levels', results)).to.deep.equal({ doc_id: 'd1', title: 'Logging overview' });
    expect(documentNamed('anything', [])).to.equal(null);
  });
});
