import { expect } from 'chai';
import { parseJson } from '../../../src/parsing/text/index.js';
import { blocksOf, bytesOf, expectCode, fixture, headings, paragraphs, textContext } from './support.js';

describe('parseJson', () => {
  it('renders an API response: keys as headings for three levels, scalars as path: value lines', async () => {
    const document = await parseJson(fixture('api-response.json'), textContext('api-response.json'));
    expect(document.format).to.equal('.json');
    expect(document.metadata.title).to.equal('riverwatch-toolkit');
    expect(headings(document)).to.deep.equal([
      [1, 'repository'],
      [2, 'owner'],
      [3, 'links'],
      [2, 'topics'],
      [1, 'releases'],
      [1, 'sites'],
      [2, 'sites[0]'],
      [3, 'location'],
      [3, 'pins'],
      [2, 'sites[1]'],
      [3, 'location'],
      [1, 'pagination'],
    ]);
    const texts = paragraphs(document);
    // Numbers keep their source text: 9007199254740993 is beyond what a double holds exactly.
    expect(texts[0]).to.equal(
      'name: riverwatch-toolkit\nstatus: ok\ngenerated_at: 2024-03-18T09:00:00Z\nrequest_id: 9007199254740993',
    );
    // Below the third heading level, paths are relative to the nearest heading.
    expect(texts).to.include(
      'html: https://git.example/riverwatch\navatar.url: https://git.example/avatars/riverwatch.png\navatar.size: 64',
    );
    expect(texts).to.include('license: null');
    expect(texts).to.include('pins: []');
    expect(texts.at(-1)).to.equal('page: 1\nper_page: 30\nnext: null');
  });

  it('turns arrays of scalars into lists and arrays of flat objects into tables (union of keys)', async () => {
    const document = await parseJson(fixture('api-response.json'), textContext('api-response.json'));
    expect(blocksOf(document, 'list')[0]?.items).to.deep.equal(['rivers', 'erosion', 'citizen-science']);
    const [releases, pins] = blocksOf(document, 'table').map((block) => block.table);
    expect(releases).to.deep.include({ caption: 'releases', hasHeader: true });
    expect(releases?.cells).to.deep.equal([
      ['tag', 'published_at', 'downloads', 'prerelease'],
      ['v2.1.0', '2024-03-01', '412', 'false'],
      ['v2.0.0', '2023-11-20', '1380', 'false'],
      ['v2.1.0-rc1', '2024-02-10', '37', ''],
    ]);
    expect(pins?.cells).to.deep.equal([
      ['pin', 'exposed_cm'],
      ['P1', '7.5'],
      ['P2', '6.0'],
    ]);
  });

  it('reads a top-level array of records as one table titled by the file name', async () => {
    const document = await parseJson(
      bytesOf('[{"id":1,"name":"pin"},{"id":2,"name":"ruler","spare":true}]'),
      textContext('items.json'),
    );
    expect(document.metadata.title).to.equal('items');
    expect(document.blocks).to.have.length(1);
    expect(blocksOf(document, 'table')[0]?.table.cells).to.deep.equal([
      ['id', 'name', 'spare'],
      ['1', 'pin', ''],
      ['2', 'ruler', 'true'],
    ]);
  });

  it('decodes string escapes, including surrogate pairs and \\u0000-free text', async () => {
    const document = await parseJson(
      bytesOf('{"quote":"say \\"hi\\"\\n\\u00e9\\ud83c\\udf0a","path":"a\\/b"}'),
      textContext('esc.json'),
    );
    expect(paragraphs(document)).to.deep.equal(['quote: say "hi"\né🌊\npath: a/b']);
  });

  describe('bad input', () => {
    it('reports invalid JSON as corrupt with line, column and offset', async () => {
      const error = await expectCode(
        parseJson(bytesOf('{\n  "a": 1,\n  "b": tru\n}'), textContext('bad.json')),
        'corrupt_document',
      );
      expect(error.message).to.contain('line 3, column 8').and.to.contain('offset 19');
      await expectCode(parseJson(bytesOf('[1, 2,]'), textContext('trailing.json')), 'corrupt_document');
      await expectCode(
        parseJson(bytesOf('{"a": "unterminated'), textContext('cut.json')),
        'corrupt_document',
      );
      const lines = await expectCode(
        parseJson(bytesOf('{"a":1}\n{"a":2}\n'), textContext('lines.json')),
        'corrupt_document',
      );
      expect(lines.message).to.contain('one value per file');
    });

    it('refuses 100,000 nested arrays and objects as too_complex, quickly and without a stack overflow', async () => {
      const depth = 100_000;
      for (const [open, close] of [
        ['[', ']'],
        ['{"a":', '}'],
      ] as const) {
        const started = performance.now();
        const text = `${open.repeat(depth)}1${close.repeat(depth)}`;
        const error = await expectCode(parseJson(bytesOf(text), textContext('deep.json')), 'too_complex');
        expect(error.message).to.contain('200');
        expect(performance.now() - started).to.be.below(500);
      }
    });

    it('accepts nesting right at maxNestingDepth', async () => {
      const text = `${'['.repeat(10)}"x"${']'.repeat(10)}`;
      const document = await parseJson(
        bytesOf(text),
        textContext('ten.json', { limits: { maxNestingDepth: 10 } }),
      );
      expect(document.blocks.at(-1)).to.deep.include({ type: 'paragraph', text: '[0][0][0][0][0][0]: x' });
      await expectCode(
        parseJson(bytesOf(`[${text}]`), textContext('eleven.json', { limits: { maxNestingDepth: 10 } })),
        'too_complex',
      );
    });

    it('reports {} and [] as empty documents', async () => {
      await expectCode(parseJson(bytesOf('{}'), textContext('empty.json')), 'empty_document');
      await expectCode(parseJson(bytesOf(' [ ] '), textContext('empty.json')), 'empty_document');
    });
  });
});
