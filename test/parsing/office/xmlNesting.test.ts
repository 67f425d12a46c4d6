import { expect } from 'chai';
import { nestingError } from '../../../src/parsing/office/xmlNesting.js';

describe('office XML nesting check', () => {
  it('accepts well-nested parts with comments, CDATA, declarations and ">" or "/" in attribute values', () => {
    const xml = [
      '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>',
      '<w:document xmlns:w="urn:w"><!-- <w:p> in a comment --><w:body>',
      '<w:p w:rsid="a>b" w:uri="http://x/y/"><w:r><w:t xml:space="preserve">a &lt; b</w:t></w:r></w:p>',
      "<w:p/><w:p w:x='1/2' /><w:sdt><![CDATA[ <w:p> ]]></w:sdt>",
      '</w:body></w:document>',
    ].join('\n');
    expect(nestingError(xml)).to.equal(null);
  });

  it('names the element left open, with its line and column', () => {
    expect(nestingError('<w:document>\n  <w:body><w:p>text</w:body>\n</w:document>')).to.equal(
      '<w:p> opened at line 2, column 11 is closed by </w:body> at line 2, column 20',
    );
    expect(nestingError('<w:document><w:body><w:p>cut off here')).to.equal(
      '<w:p> opened at line 1, column 21 is never closed',
    );
    expect(nestingError('<a>t</a></b>')).to.equal(
      'the end tag </b> at line 1, column 9 closes no open element',
    );
  });

  it('treats a tag with an unterminated attribute value as broken, and stays linear on such input', () => {
    expect(nestingError('<a x="1>t</a>')).to.equal('the "<" at line 1, column 1 starts no well-formed tag');
    expect(nestingError('<a>1 < 2</a>')).to.equal('the "<" at line 1, column 6 starts no well-formed tag');
    const hostile = `${'<b x="'.repeat(200_000)}`;
    const start = performance.now();
    expect(nestingError(hostile)).to.equal('the "<" at line 1, column 1 starts no well-formed tag');
    expect(nestingError(`<a>${'<b/>'.repeat(200_000)}${'<c x="'.repeat(1000)}</a>`)).to.match(
      /column 800004 starts/,
    );
    expect(performance.now() - start).to.be.below(500);
  });
});
