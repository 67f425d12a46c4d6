import { expect } from 'chai';
import type { ParsedDocument } from '../../../src/parsing/model.js';
import { images, tables } from '../../../src/parsing/model.js';
import { openSafeZip } from '../../../src/parsing/office/safeZip.js';
import { parsePptx } from '../../../src/parsing/office/parsePptx.js';
import { expectParseError } from '../expectParseError.js';
import { context, fixture } from './helpers.js';
import { rewriteZip } from './zipWriter.js';

async function part(name: string): Promise<string> {
  const zip = await openSafeZip(fixture('slides.pptx'), context('slides.pptx'));
  return (await zip.read(name))?.toString('utf8') ?? '';
}

function summary(doc: ParsedDocument): string[] {
  return doc.blocks.map((b) => {
    if (b.type === 'heading') return `${b.page} h${b.level} ${b.text}`;
    if (b.type === 'paragraph') return `${b.page} p ${b.text}`;
    if (b.type === 'list') return `${b.page} ${b.ordered ? 'ol' : 'ul'} ${b.items.join(' / ')}`;
    if (b.type === 'table') return `${b.page} table ${b.table.cells.length}x${b.table.cells[0]?.length ?? 0}`;
    return `${b.page} image ${b.image.altText ?? ''}`;
  });
}

describe('parsePptx', () => {
  describe('a deck made by LibreOffice (slides.pptx)', () => {
    let doc: ParsedDocument;
    before(async () => {
      doc = await parsePptx(fixture('slides.pptx'), context('slides.pptx'));
    });

    it('makes each slide a page whose title is a level-1 heading, notes after the slide content', () => {
      expect(summary(doc)).to.deep.equal([
        '1 h1 Field Survey 2024',
        '1 p Results and next steps',
        '1 p Notes: Welcome everyone and introduce the team.',
        '2 h1 Agenda',
        '2 ul Background / Findings /   Water quality / Next steps',
        '3 h1 Samples by site',
        '3 table 4x3',
        '4 h1 Site photo',
        '4 image Photo of the northern sampling site',
        '4 p Taken in March after heavy rain.',
        '4 p Notes: Mention the weather conditions.\nAsk for questions.',
      ]);
      expect(doc.metadata.numPages).to.equal(4);
      expect(doc.pages.map((page) => page.number)).to.deep.equal([1, 2, 3, 4]);
    });

    it('reads the table, its merged cell expanded', () => {
      expect(tables(doc)[0]?.cells).to.deep.equal([
        ['Site', 'Samples', 'Status'],
        ['N-1', '12', 'Complete'],
        ['S-1', '8', 'Pending'],
        ['Total samples: 20', 'Total samples: 20', 'Partial'],
      ]);
      expect(tables(doc)[0]).to.include({ pageNumber: 3, hasHeader: true, index: 0 });
    });

    it('reads the picture with its alt text and pixel size', () => {
      expect(images(doc)).to.have.length(1);
      expect(images(doc)[0]).to.include({ pageNumber: 4, format: 'png', width: 240, height: 160, index: 0 });
    });

    it('reads the title and author from the core properties', () => {
      expect(doc.metadata).to.include({ title: 'Field Survey 2024', author: 'Lina Saeed', language: null });
      expect(doc.metadata.extra).to.include({ slides: 4 });
      expect(doc.format).to.equal('.pptx');
    });
  });

  it('follows the slide order of presentation.xml, not the part names', async () => {
    const presentation = (await part('ppt/presentation.xml')).replace(
      '<p:sldId id="256" r:id="rId4"/><p:sldId id="257" r:id="rId5"/>',
      '<p:sldId id="257" r:id="rId5"/><p:sldId id="256" r:id="rId4"/>',
    );
    expect(presentation).to.include('<p:sldId id="257" r:id="rId5"/><p:sldId id="256" r:id="rId4"/>');
    const doc = await parsePptx(
      await rewriteZip(fixture('slides.pptx'), { 'ppt/presentation.xml': presentation }),
      context('x.pptx'),
    );
    expect(
      doc.blocks.filter((b) => b.type === 'heading').map((b) => [b.page, b.type === 'heading' && b.text]),
    ).to.deep.equal([
      [1, 'Agenda'],
      [2, 'Field Survey 2024'],
      [3, 'Samples by site'],
      [4, 'Site photo'],
    ]);
  });

  it('includes a hidden slide and says so on its page', async () => {
    const slide = (await part('ppt/slides/slide2.xml')).replace('<p:sld ', '<p:sld show="0" ');
    const doc = await parsePptx(
      await rewriteZip(fixture('slides.pptx'), { 'ppt/slides/slide2.xml': slide }),
      context('x.pptx'),
    );
    expect(doc.pages[1]?.note).to.equal('slide 2 is hidden in the presentation');
    expect(doc.metadata.extra).to.include({ hiddenSlides: '2' });
    expect(summary(doc)).to.include('2 h1 Agenda');
  });

  it('reads auto-numbered paragraphs as an ordered list and buNone paragraphs as text', async () => {
    const slide = (await part('ppt/slides/slide2.xml'))
      .replaceAll('<a:buChar char="●"/>', '<a:buAutoNum type="arabicPeriod"/>')
      .replace('<a:buChar char="–"/>', '<a:buNone/>');
    const doc = await parsePptx(
      await rewriteZip(fixture('slides.pptx'), { 'ppt/slides/slide2.xml': slide }),
      context('x.pptx'),
    );
    expect(summary(doc).filter((line) => line.startsWith('2 '))).to.deep.equal([
      '2 h1 Agenda',
      '2 ol Background / Findings',
      '2 p Water quality',
      '2 ol Next steps',
    ]);
  });

  it('reads SmartArt text from its diagram data part, and warns about a chart it cannot read', async () => {
    const dgm = 'http://schemas.openxmlformats.org/drawingml/2006/diagram';
    const frame = (id: number, uri: string, inner: string): string =>
      `<p:graphicFrame><p:nvGraphicFramePr><p:cNvPr id="${id}" name="f${id}"/><p:cNvGraphicFramePr/><p:nvPr/></p:nvGraphicFramePr>` +
      `<p:xfrm><a:off x="0" y="0"/><a:ext cx="1" cy="1"/></p:xfrm><a:graphic><a:graphicData uri="${uri}">${inner}</a:graphicData></a:graphic></p:graphicFrame>`;
    const slide = (await part('ppt/slides/slide3.xml')).replace(
      '</p:spTree>',
      frame(90, dgm, `<dgm:relIds xmlns:dgm="${dgm}" r:dm="rId90" r:lo="rId91" r:qs="rId92" r:cs="rId93"/>`) +
        frame(
          91,
          'http://schemas.openxmlformats.org/drawingml/2006/chart',
          '<c:chart xmlns:c="c" r:id="rId94"/>',
        ) +
        '</p:spTree>',
    );
    const rels = (await part('ppt/slides/_rels/slide3.xml.rels')).replace(
      '</Relationships>',
      '<Relationship Id="rId90" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/diagramData" Target="../diagrams/data1.xml"/></Relationships>',
    );
    const point = (text: string): string =>
      `<dgm:pt modelId="{${text}}"><dgm:prSet/><dgm:spPr/><dgm:t><a:bodyPr/><a:lstStyle/><a:p>${text ? `<a:r><a:rPr lang="en-US"/><a:t>${text}</a:t></a:r>` : ''}</a:p></dgm:t></dgm:pt>`;
    const data = `<dgm:dataModel xmlns:dgm="${dgm}" xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main"><dgm:ptLst>${['', 'Plan', 'Sample', 'Report'].map(point).join('')}</dgm:ptLst></dgm:dataModel>`;
    const bytes = await rewriteZip(fixture('slides.pptx'), {
      'ppt/slides/slide3.xml': slide,
      'ppt/slides/_rels/slide3.xml.rels': rels,
      'ppt/diagrams/data1.xml': data,
    });
    const doc = await parsePptx(bytes, context('smartart.pptx'));
    expect(summary(doc).filter((line) => line.startsWith('3 '))).to.deep.equal([
      '3 h1 Samples by site',
      '3 table 4x3',
      '3 ul Plan / Sample / Report',
    ]);
    expect(doc.warnings).to.deep.equal(['a chart on slide 3 was not extracted']);
  });

  it('refuses more slides than maxPages (too_large)', async () => {
    await expectParseError(
      parsePptx(fixture('slides.pptx'), context('slides.pptx', { limits: { maxPages: 3 } })),
      'too_large',
    );
  });
});
