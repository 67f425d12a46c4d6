/**
 * Realistic parsed documents built in code for chunking, rendering and summarising tests (and the
 * chunking benchmark): real sentences, several heading levels, long sections, a 200-row table,
 * Arabic paragraphs, lists, images and pages — what the parsers hand over after cleaning.
 */
import type { Block, Extension, Image, ParsedDocument, Table } from '../../../src/parsing/model.js';

export const ENGLISH_SENTENCES = [
  'The utility treated 41.2 million cubic metres of raw water during the reporting year.',
  'Turbidity at the outlet of the sand filters stayed below 0.3 NTU in every monthly sample.',
  'Two pumping stations were refurbished, which cut the energy used per cubic metre by eleven percent.',
  'Chlorine residuals were measured daily at forty sampling points across the distribution network.',
  'A pipe burst on the northern trunk main in March interrupted supply to about 2,300 households for nine hours.',
  'The laboratory renewed its accreditation after an external audit found no major non-conformities.',
  'Lead service lines remain in older districts, and the replacement programme reached 640 connections.',
  'Customer complaints about taste and odour fell for the third consecutive year.',
  'Rainfall in the catchment was fourteen percent below the long-term average, so reservoir levels were watched closely.',
  'Nitrate concentrations in the groundwater wells were stable and well within the regulatory limit.',
  'The board approved a capital plan that prioritises leakage reduction over new abstraction.',
  'Non-revenue water dropped from 23 to 19 percent as district metering areas were completed.',
  'Staff training focused on confined-space entry, chemical handling and incident reporting.',
  'Sludge from the clarifiers was dewatered on site and reused as a soil conditioner by local farms.',
  'An online dashboard now publishes daily quality results for every supply zone.',
  'Microbiological compliance was 99.96 percent, with two coliform detections resolved by resampling.',
];

export const ARABIC_SENTENCES = [
  'عالجت المحطة أكثر من أربعين مليون متر مكعب من المياه الخام خلال العام.',
  'بقيت العكارة عند مخرج المرشحات الرملية أقل من الحد المسموح به في جميع العينات الشهرية.',
  'تم تأهيل محطتي ضخ مما خفض استهلاك الطاقة لكل متر مكعب بنسبة أحد عشر في المئة.',
  'قيس الكلور المتبقي يوميا في أربعين نقطة على امتداد شبكة التوزيع.',
  'انخفضت شكاوى المشتركين من الطعم والرائحة للسنة الثالثة على التوالي.',
  'هل يمكن خفض الفاقد من المياه إلى أقل من خمسة عشر في المئة خلال ثلاث سنوات؟',
  'وافق مجلس الإدارة على خطة استثمارية تعطي الأولوية لخفض التسرب.',
  'نشرت الشركة لوحة معلومات إلكترونية تعرض نتائج الجودة اليومية لكل منطقة.',
];

/** Deterministic sentence picker (a fixed linear congruential sequence). */
export function prose(words: number, seed = 1, pool: readonly string[] = ENGLISH_SENTENCES): string {
  let state = seed;
  const sentences: string[] = [];
  let count = 0;
  while (count < words) {
    state = (state * 1103515245 + 12345) % 2147483648;
    const sentence = pool[state % pool.length] ?? '';
    sentences.push(sentence);
    count += sentence.split(/\s+/).length;
  }
  return sentences.join(' ');
}

export function heading(text: string, level: number, page = 1): Block {
  return { type: 'heading', text, level, page };
}

export function paragraph(text: string, page = 1): Block {
  return { type: 'paragraph', text, page };
}

export function list(items: string[], page = 1, ordered = false): Block {
  return { type: 'list', items, ordered, page };
}

export function tableBlock(cells: string[][], page = 1, index = 0, caption: string | null = null): Block {
  const table: Table = { index, pageNumber: page, cells, hasHeader: true, caption };
  return { type: 'table', table, page };
}

export function imageBlock(description: string, page = 1, index = 0): Block {
  const image: Image = {
    index,
    pageNumber: page,
    description,
    format: 'png',
    width: 800,
    height: 600,
    altText: null,
    ocrText: null,
    kind: 'chart',
    data: new Uint8Array([137, 80, 78, 71]),
  };
  return { type: 'image', image, page };
}

/** Sampling results: header + `rows` rows of five cells. */
export function samplingTable(rows: number): string[][] {
  const zones = ['North', 'South', 'East', 'West', 'Centre'];
  const cells: string[][] = [['Sample', 'Zone', 'Chlorine mg/l', 'Turbidity NTU', 'Result']];
  for (let i = 1; i <= rows; i += 1) {
    cells.push([
      `S-${String(i).padStart(3, '0')}`,
      zones[i % zones.length] ?? 'North',
      (0.2 + (i % 7) / 10).toFixed(2),
      ((i % 5) / 10 + 0.05).toFixed(2),
      i % 37 === 0 ? 'resampled' : 'compliant',
    ]);
  }
  return cells;
}

export function makeDocument(
  blocks: Block[],
  options: { title?: string; format?: Extension; pages?: number; language?: string | null } = {},
): ParsedDocument {
  const pageCount = options.pages ?? Math.max(1, ...blocks.map((block) => block.page));
  return {
    format: options.format ?? '.pdf',
    sourceFile: `report${options.format ?? '.pdf'}`,
    metadata: {
      title: options.title ?? 'Annual Water Quality Report 2024',
      author: 'Water Services Department',
      numPages: pageCount,
      language: options.language ?? null,
      extra: {},
    },
    pages: Array.from({ length: pageCount }, (_, i) => ({
      number: i + 1,
      hasTextLayer: true,
      ocr: 'not_needed' as const,
      note: null,
    })),
    blocks,
    warnings: [],
  };
}

/**
 * A 12-page annual report: title (H1), chapters (H2), subsections (H3), long and short sections, a
 * 200-row table, a list, a chart, an empty chapter heading directly followed by its first subsection,
 * tiny sibling subsections and an Arabic summary.
 */
export function annualReport(): ParsedDocument {
  return makeDocument([
    heading('Annual Water Quality Report 2024', 1, 1),
    paragraph(prose(120, 3), 1),
    heading('Treatment', 2, 1),
    heading('Raw water', 3, 1),
    paragraph(prose(380, 5), 1),
    paragraph(prose(420, 7), 2),
    paragraph(prose(300, 11), 3),
    heading('Filtration', 3, 3),
    paragraph(prose(260, 13), 3),
    imageBlock('A bar chart of monthly turbidity at the filter outlet, all months below 0.3 NTU.', 3),
    heading('Distribution', 2, 4),
    paragraph(prose(90, 17), 4),
    heading('Pressure zones', 3, 4),
    paragraph(prose(30, 19), 4),
    heading('Reservoirs', 3, 4),
    paragraph(prose(25, 23), 4),
    heading('Hydrants', 3, 4),
    paragraph(prose(28, 29), 4),
    heading('Sampling results', 2, 5),
    paragraph('Every sample taken at the forty network points in 2024 is listed below.', 5),
    tableBlock(samplingTable(200), 5, 0, 'Table 1: Network samples'),
    heading('Investment plan', 2, 9),
    list(
      [
        'Replace 1,200 lead service connections by 2027.',
        'Complete the remaining district metering areas.',
        'Build a second treated-water reservoir for the southern zone.',
      ],
      9,
      true,
    ),
    paragraph(prose(500, 31), 9),
    paragraph(prose(500, 37), 10),
    heading('ملخص باللغة العربية', 2, 11),
    paragraph(prose(160, 41, ARABIC_SENTENCES), 11),
    paragraph(prose(140, 43, ARABIC_SENTENCES), 12),
  ]);
}

/** A long generated document for the benchmark: headings every page, tables every ten pages. */
export function longReport(pages: number): ParsedDocument {
  const blocks: Block[] = [heading('Long-term Water Quality Series', 1, 1)];
  let tableIndex = 0;
  for (let page = 1; page <= pages; page += 1) {
    if (page % 20 === 1) blocks.push(heading(`Part ${Math.ceil(page / 20)}`, 2, page));
    if (page % 4 === 1) blocks.push(heading(`Chapter ${Math.ceil(page / 4)}`, 3, page));
    blocks.push(heading(`Section ${page}`, 4, page));
    for (let p = 0; p < 5; p += 1) blocks.push(paragraph(prose(90, page * 7 + p), page));
    if (page % 10 === 0) {
      blocks.push(tableBlock(samplingTable(40), page, tableIndex, `Table ${tableIndex + 1}`));
      tableIndex += 1;
    }
  }
  return makeDocument(blocks, { pages });
}
