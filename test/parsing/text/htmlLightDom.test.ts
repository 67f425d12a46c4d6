import { expect } from 'chai';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  findElement,
  findElements,
  isElement,
  parseHtmlDocument,
  tagOf,
  type DomDocument,
  type DomNode,
} from '../../../src/parsing/text/htmlDom.js';
import { parseLightHtmlDocument } from '../../../src/parsing/text/htmlLightDom.js';
import { removeBoilerplate } from '../../../src/parsing/text/htmlBoilerplate.js';
import { FIXTURES } from './support.js';

const ATTRIBUTES = ['class', 'id', 'role', 'colspan', 'COLSPAN', 'hidden', 'style', 'lang', 'alt', 'src'];

/** The tree as the reader sees it: node types, names, the attributes it reads, text. */
function outline(node: DomNode): unknown {
  const children: unknown[] = [];
  for (let child = node.firstChild; child; child = child.nextSibling) children.push(outline(child));
  if (!isElement(node)) return [node.nodeType, node.textContent];
  const attributes = ATTRIBUTES.map((name) => [name, node.getAttribute(name), node.hasAttribute(name)]);
  return [tagOf(node), node.hasAttributes(), attributes, node.textContent, node.children.length, children];
}

/**
 * Both DOMs from the root element down (linkedom's doctype node has no next sibling), with the
 * implied head and body asked for first, as the metadata reader does.
 */
function both(html: string): [DomDocument, DomDocument] {
  const documents: [DomDocument, DomDocument] = [parseHtmlDocument(html), parseLightHtmlDocument(html)];
  for (const document of documents) void document.body;
  return documents;
}

function outlineOf(document: DomDocument): unknown {
  return document.documentElement && outline(document.documentElement);
}

describe('the light HTML DOM', () => {
  const cases: Record<string, string> = {
    'entities split text, comments, CDATA as a comment':
      '<p>a &amp; b&nbsp;c &#x41;<!-- note --><![CDATA[x<y]]></p>',
    'class tokens deduplicated and single-spaced, attribute names as written':
      '<div class="  note  tip note\n" ID="x" data-a="1"><td COLSPAN="2">t</td></div>',
    'implied closes and stray end tags': '<ul><li>one<li>two</ul><p>para<div>block</div></p></span>',
    'void and self-closed elements': '<p>a<br>b<img src="x.png" alt="X"/><div/>after</p>',
    'raw text and foreign content':
      '<script>if (a < b) x = "</p>";</script><style>p{}</style><svg><title>t</title><rect/></svg>',
    'a page without html, head or body': '<title>T</title><h1>Heading</h1><p>Text</p>',
    'a body that is not the first thing after head':
      '<html><head><title>t</title></head><p>stray</p><body><p>x</p></body></html>',
    'no head at all': '<html><body lang="ar"><main><h1>h</h1></main></body></html>',
  };
  for (const [name, html] of Object.entries(cases)) {
    it(`builds the tree linkedom builds: ${name}`, () => {
      const [linkedom, light] = both(html);
      expect(outlineOf(light)).to.deep.equal(outlineOf(linkedom));
    });
  }

  it('builds the trees linkedom builds for every HTML fixture, before and after boilerplate removal', () => {
    const pages = readdirSync(FIXTURES).filter((name) => /\.html?$/.test(name));
    expect(pages).not.to.deep.equal([]);
    for (const page of pages) {
      const [linkedom, light] = both(readFileSync(join(FIXTURES, page), 'utf8'));
      expect(outlineOf(light), page).to.deep.equal(outlineOf(linkedom));
      removeBoilerplate(linkedom);
      removeBoilerplate(light);
      expect(outlineOf(light), page).to.deep.equal(outlineOf(linkedom));
    }
  });

  it('finds elements in document order, below the root only', () => {
    const document = parseLightHtmlDocument(
      '<div id="a"><p id="b"><span id="c"></span></p><div id="d"></div></div>',
    );
    const outer = findElement(document, (element) => element.getAttribute('id') === 'a');
    expect(outer).not.to.equal(null);
    if (!outer) return;
    expect(findElements(outer, () => true).map((element) => element.getAttribute('id'))).to.deep.equal([
      'b',
      'c',
      'd',
    ]);
    expect(findElement(outer, (element) => tagOf(element) === 'div')?.getAttribute('id')).to.equal('d');
  });
});
