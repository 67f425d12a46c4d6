/**
 * Makes the held-out corpus's Arabic OCR pages (test/corpus/heldout/ocr-ar-*): real Arabic text
 * drawn in several Arabic type families from Debian's font packages, each page type (clean, scanned,
 * small print, Arabic lines with English terms) in each family, so that OCR is judged on type it was
 * not tuned on (the real corpus's pages are all DejaVu Sans). Every text comes from a package too:
 * the Amiri font's Arabic manual (fonts-hosny-amiri, Documentation-Arabic.pdf; word splits and
 * punctuation that pdftotext garbled are set right, harakat left out) and apt's Arabic messages
 * (apt, /usr/share/locale/ar/LC_MESSAGES/apt.mo, read with msgunfmt).
 *
 * Run: `node --import tsx scripts/corpus/renderArabicFonts.ts DIR`, where DIR holds the font
 * packages unpacked (`apt-get download fonts-hosny-amiri fonts-sil-scheherazade fonts-noto-core
 * fonts-kacst-one fonts-sil-lateef fonts-arabeyes fonts-kacst && for p in *.deb; do dpkg-deb -x $p DIR; done`); nothing is
 * installed system-wide. Every family is checked to be the one librsvg draws with (a page set in a
 * missing family falls back to DejaVu Sans silently). Deterministic: the noise is seeded. Writes the
 * images, their `<id>.reference.txt` and `manifest.ocr.tsv`; `expectations.ocr.json` is kept by hand.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { escapeXml, scanLook, wrap } from './scanLook.js';

const fontRoot = process.argv[2];
if (!fontRoot) {
  console.error('usage: renderArabicFonts.ts DIR (the font packages unpacked with dpkg-deb -x)');
  process.exit(2);
}
// sharp's fontconfig reads this when it first draws text, so it is set before sharp is loaded.
const configDir = mkdtempSync(join(tmpdir(), 'arabic-fonts-'));
writeFileSync(
  join(configDir, 'fonts.conf'),
  `<?xml version="1.0"?>
<!DOCTYPE fontconfig SYSTEM "fonts.dtd">
<fontconfig>
  <include ignore_missing="yes">/etc/fonts/fonts.conf</include>
  <dir>${escapeXml(resolve(fontRoot, 'usr/share/fonts'))}</dir>
  <cachedir>${escapeXml(join(configDir, 'cache'))}</cachedir>
</fontconfig>
`,
);
process.env.FONTCONFIG_FILE = join(configDir, 'fonts.conf');
const { default: sharp } = await import('sharp');

const OUT = 'test/corpus/heldout/';
const DPI = 150;
const PAGE_WIDTH = Math.round(8.27 * DPI); // A4 width
const MARGIN = 110;

interface Font {
  /** Short name used in the ids. */
  key: string;
  family: string;
  package: string;
  version: string;
  licence: string;
  /** What kind of Arabic type it is. */
  style: string;
}

const FONTS: Font[] = [
  {
    key: 'amiri',
    family: 'Amiri',
    package: 'fonts-hosny-amiri',
    version: '0.113-1',
    licence: 'OFL-1.1',
    style: 'traditional Naskh (Bulaq press)',
  },
  {
    key: 'scheherazade',
    family: 'Scheherazade',
    package: 'fonts-sil-scheherazade',
    version: '2.100-2.1',
    licence: 'OFL-1.1',
    style: 'traditional Naskh, small x-height',
  },
  {
    key: 'notonaskh',
    family: 'Noto Naskh Arabic',
    package: 'fonts-noto-core',
    version: '20201225-1',
    licence: 'OFL-1.1',
    style: 'modern Naskh',
  },
  {
    key: 'notokufi',
    family: 'Noto Kufi Arabic',
    package: 'fonts-noto-core',
    version: '20201225-1',
    licence: 'OFL-1.1',
    style: 'Kufi',
  },
  {
    key: 'kacstone',
    family: 'KacstOne',
    package: 'fonts-kacst-one',
    version: '5.0+svn11846-10',
    licence: 'GPL-2',
    style: 'sans, bold strokes',
  },
  {
    key: 'lateef',
    family: 'Lateef',
    package: 'fonts-sil-lateef',
    version: '2.000-1',
    licence: 'OFL-1.1',
    style: 'Naskh for Sindhi and Urdu, small x-height',
  },
  {
    key: 'notosans',
    family: 'Noto Sans Arabic',
    package: 'fonts-noto-core',
    version: '20201225-1',
    licence: 'OFL-1.1',
    style: 'sans (UI)',
  },
  {
    key: 'alarabiya',
    family: 'AlArabiya',
    package: 'fonts-arabeyes',
    version: '2.1-7',
    licence: 'GPL-2',
    style: 'Naskh of the Arabeyes project',
  },
  {
    key: 'kacstbook',
    family: 'KacstBook',
    package: 'fonts-kacst',
    version: '2.01+mry-15',
    licence: 'GPL-2',
    style: 'book Naskh',
  },
];

const AMIRI_MANUAL = {
  source: 'debian:fonts-hosny-amiri',
  version: '0.113-1',
  path: '/usr/share/doc/fonts-hosny-amiri/Documentation-Arabic.pdf.gz',
  licence: 'OFL-1.1',
};
const APT_MESSAGES = {
  source: 'debian:apt',
  version: '2.6.1',
  path: '/usr/share/locale/ar/LC_MESSAGES/apt.mo',
  licence: 'GPL-2+',
};

/** The Amiri manual, pages 1–4: introduction, Unicode coverage, OpenType, the word Allah, digits, features. */
const MANUAL = {
  introduction:
    'الخط الأميري خط نسخي موجه لطباعة الكتب و النصوص الطويلة، و هو إحياء و محاكاة للخط الطباعي الجميل الذي تميزت به مطبعة بولاق منذ أوائل القرن العشرين. يهدف مشروع الخط الأميري إلى إحياء تقاليد و جماليات الطباعة العربية و موائمتها لتقنيات عصر الحواسيب، مع إتاحتها للعموم.',
  coverage:
    'يدعم الخط الأميري كل الحروف و الرموز العربية في الإصدارة السادسة من معيار يونيكود مما يجعله مناسبا لكتابة أي لغة من اللغات التي تستخدم الخط العربي و مدعومة في يونيكود، مثل الكردية و الفارسية و الأردية و الباشتو و الملايوية و الهوسا و الولفية، على سبيل المثال لا الحصر.',
  press:
    'يتميز خط المطابع الأميرية بجماليته و مراعاته لفن الخط العربي، بأسلوب نسخي جميل، و في ذات الوقت يراعى متطلبات الطباعة و القيود التي تفرضها، من غير إفراط في جانب على حساب الآخر. و لهذا يتميز بمناسبته للصف الطباعي عموما، و لصف الكتب خصوصا.',
  openType:
    'يستخدم الخط الأميري تقنية أوبن تيب للخطوط الحاسوبية الذكية التي تتيح تحكما واسعا في أشكال الحروف حسب السياق المحيط بها و في تموضع علامات التشكيل، و هي تقنية مدعومة في أغلب أنظمة التشغيل الحديثة. يستخدم الخط الأميري تقنية أوبن تيب بشكل مكثف قلما تجاريه أي من الخطوط الحاسوبية الأخرى و لذا قد تحدث مشاكل عند استخدامه مع البرمجيات التي لا تطبق معيار أوبن تيب بدرجة كافية.',
  signs:
    'في يونيكود عدد من العلامات العربية الخاصة التي تضم الأرقام داخلها، أي إذا تبعت أي من هذه العلامات برقم أو أكثر فإنها تحيط هذا الرقم. لاحظ أن الأرقام يجب أن تتبع العلامة مباشرة دون أي فاصل بينها و لا حتى مسافة فارغة.',
  features:
    'يحتوي الخط الأميري على بعض الخصائص غير المفعلة مبدئيا و التي يمكن تفعيلها من البرمجيات التي تتيح التحكم في تفعيل و تعطيل خيارات أوبن تيب. لكل الأرقام في الخط الأميري نفس العرض بحيث تظهر بشكل مناسب في الجداول و غيرها من الاستخدامات التي لا يلائمها أن يختلف العرض من رقم لآخر.',
  allah:
    'يأخد لفظ الجلالة في خط النسخ شكلا خاصا به يختلف عن الشكل العادي للتتابع لام لام هاء. يستخدم الخط مجموعة من القواعد تحدد متى يستخدم الشكل الخاص بلفظ الجلالة لتفادي استخدامه مع الألفاظ التي تتركب من نفس تتابع الحروف.',
};

/**
 * apt's Arabic messages that name commands, options and headers in Latin letters (msgstr as
 * msgunfmt prints them; a stray kasra before "Content-Length" left out).
 */
const APT_LINES = [
  'الرجاء استخدام apt-cdrom لتعريف APT بهذا القرص المدمج. لا يمكن استخدام apt-get update لإضافة أقراص مدمجة جديدة.',
  'تعذر إحضار بعض الأرشيف، ربما يمكنك محاولة تنفيذ apt-get update أو إضافة --fix-missing؟',
  "مُعتمدات غير مستوفاة. جرب 'apt --fix-broken install' بدون أسماء حزم (أو حدّد حلاً).",
  'تم تحديد خادم بروكسي ولكن دون نص تسجيل دخول برمجي، Acquire::ftp::ProxyLogin فارغ.',
  'يا للغرابة... لم تتطابق الأحجام، الرجاء مراسلة apt@packages.debian.org',
  'أرسل خادم http ترويسة طول محتويات (Content-Length) غير صالحة',
];

interface PageType {
  key: string;
  note: string;
  text: typeof AMIRI_MANUAL;
  paragraphs: string[];
  points: number;
  skewDegrees: number;
  paper: number;
  noise: number;
  format: 'png' | 'jpg';
  /** Palette PNG of 16 greys, as the real corpus's scans; false: full 8-bit grey. */
  palette: boolean;
}

const TYPES: PageType[] = [
  {
    key: 'clean',
    note: 'pages 1–2: introduction and Unicode coverage, clean page',
    text: AMIRI_MANUAL,
    paragraphs: [MANUAL.introduction, MANUAL.coverage],
    points: 12,
    skewDegrees: 0,
    paper: 255,
    noise: 0,
    format: 'png',
    palette: false,
  },
  {
    key: 'scan',
    note: 'pages 1–2: the press style and OpenType, scanned-looking',
    text: AMIRI_MANUAL,
    paragraphs: [MANUAL.press, MANUAL.openType],
    points: 12,
    skewDegrees: -1.5,
    paper: 230,
    noise: 24,
    format: 'jpg',
    palette: false,
  },
  {
    key: 'small',
    note: 'pages 2–4: the word Allah, digit signs, optional features, small print',
    text: AMIRI_MANUAL,
    paragraphs: [MANUAL.allah, MANUAL.signs, MANUAL.features],
    points: 8,
    skewDegrees: 0.8,
    paper: 236,
    noise: 18,
    format: 'png',
    palette: true,
  },
  {
    key: 'mixed',
    note: 'six messages naming commands and options in Latin letters',
    text: APT_MESSAGES,
    paragraphs: APT_LINES,
    points: 11,
    skewDegrees: 0.7,
    paper: 240,
    noise: 16,
    format: 'png',
    palette: true,
  },
];

/**
 * Which type in which family. The last four rows were not looked at while the OCR was fixed (the
 * Lateef and Noto Sans pages were read once with and without the old preprocessing while the
 * failure was being found; the AlArabiya and KacstBook ones were rendered after the fix).
 */
const PAGES: Array<[font: string, type: string]> = [
  ['amiri', 'clean'],
  ['amiri', 'scan'],
  ['amiri', 'small'],
  ['amiri', 'mixed'],
  ['scheherazade', 'clean'],
  ['scheherazade', 'scan'],
  ['scheherazade', 'small'],
  ['notonaskh', 'clean'],
  ['notonaskh', 'scan'],
  ['notonaskh', 'small'],
  ['notonaskh', 'mixed'],
  ['notokufi', 'clean'],
  ['notokufi', 'scan'],
  ['notokufi', 'small'],
  ['kacstone', 'clean'],
  ['kacstone', 'scan'],
  ['kacstone', 'small'],
  ['lateef', 'scan'],
  ['notosans', 'small'],
  ['alarabiya', 'scan'],
  ['kacstbook', 'mixed'],
];

const svgPage = (width: number, height: number, family: string, px: number, body: string): string =>
  `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}">
<rect width="100%" height="100%" fill="white"/>
<g font-family="${escapeXml(family)}" font-size="${px.toFixed(1)}" fill="#202020">${body}</g></svg>`;

/** Inked width in px of one line of `text` set in `family` (the rendering trimmed of its paper). */
async function inkWidth(family: string, px: number, text: string): Promise<number> {
  const width = Math.ceil(text.length * px) + 40;
  const svg = svgPage(
    width,
    Math.ceil(px * 3),
    family,
    px,
    `<text x="${width - 20}" y="${Math.round(px * 2)}" direction="rtl">${escapeXml(text)}</text>`,
  );
  const { info } = await sharp(Buffer.from(svg), { density: 72 })
    .greyscale()
    .trim({ background: '#ffffff' })
    .raw()
    .toBuffer({ resolveWithObject: true });
  return info.width;
}

/**
 * librsvg falls back to another family, without a word, when the one named is missing: a family is
 * taken as drawn only when its sample comes out at another width than a name no font has.
 */
async function checkFamily(family: string): Promise<void> {
  const sample = MANUAL.introduction.slice(0, 120);
  const drawn = await inkWidth(family, 25, sample);
  const fallback = await inkWidth('No Such Family', 25, sample);
  if (drawn === fallback)
    throw new Error(`"${family}" is not drawn (is its package unpacked under ${fontRoot}?)`);
}

async function renderPage(font: Font, type: PageType, seed: number): Promise<{ id: string; file: string }> {
  const id = `ocr-ar-${font.key}-${type.key}`;
  const px = (type.points / 72) * DPI;
  // Naskh families reach far above and below the line: 1.7 em keeps the lines apart in all of them.
  const lineHeight = Math.round(px * 1.7);
  const usable = PAGE_WIDTH - 2 * MARGIN;
  const rows: Array<string | null> = [];
  const reference: string[] = [];
  for (const paragraph of type.paragraphs) {
    // Wrapped by the family's own mean glyph width, with a margin for lines of wide words.
    const perChar = (await inkWidth(font.family, px, paragraph)) / paragraph.length;
    const lines = wrap(paragraph, Math.floor((usable * 0.95) / perChar));
    rows.push(...lines, null);
    reference.push(lines.join('\n'));
  }
  const height = MARGIN * 2 + rows.length * lineHeight;
  const body = rows
    .map((row, i) =>
      row === null
        ? ''
        : `<text x="${PAGE_WIDTH - MARGIN}" y="${MARGIN + (i + 1) * lineHeight}" direction="rtl">${escapeXml(row)}</text>`,
    )
    .join('');
  const { data, info } = await sharp(Buffer.from(svgPage(PAGE_WIDTH, height, font.family, px, body)), {
    density: 72,
  })
    .greyscale()
    .raw()
    .toBuffer({ resolveWithObject: true });
  const pixels = scanLook(data, { paper: type.paper, noise: type.noise, seed });
  let image = sharp(pixels, { raw: { width: info.width, height: info.height, channels: 1 } });
  if (type.skewDegrees !== 0) {
    image = image.rotate(type.skewDegrees, { background: { r: type.paper, g: type.paper, b: type.paper } });
  }
  image = image.withMetadata({ density: DPI });
  image =
    type.format === 'jpg'
      ? image.jpeg({ quality: 72 })
      : type.palette
        ? image.png({ palette: true, colours: 16, compressionLevel: 9 })
        : image.png({ compressionLevel: 9 });
  const file = `${id}.${type.format}`;
  await image.toFile(`${OUT}${file}`);
  writeFileSync(`${OUT}${id}.reference.txt`, `${reference.join('\n\n')}\n`);
  return { id, file };
}

const manifest = ['id\tfile\tsource\tversion\tpath\tlicence\ttrim'];
for (const [index, [fontKey, typeKey]] of PAGES.entries()) {
  const font = FONTS.find((candidate) => candidate.key === fontKey);
  const type = TYPES.find((candidate) => candidate.key === typeKey);
  if (!font || !type) throw new Error(`unknown page ${fontKey} ${typeKey}`);
  if (index === PAGES.findIndex(([key]) => key === fontKey)) await checkFamily(font.family);
  const { id, file } = await renderPage(font, type, 100 + index);
  const look =
    type.noise === 0
      ? 'clean white page'
      : `skew ${type.skewDegrees}°, paper ${type.paper}, noise ${type.noise}, ${type.format === 'jpg' ? 'JPEG q72' : '16-grey PNG'}`;
  manifest.push(
    [
      id,
      file,
      `rendered:${type.text.source} in ${font.family} (debian:${font.package} ${font.version}, ${font.licence}; ${font.style})`,
      type.text.version,
      `${type.text.path}: ${type.note}`,
      type.text.licence,
      `${type.points} pt at ${DPI} DPI, ${look}`,
    ].join('\t'),
  );
}
writeFileSync(`${OUT}manifest.ocr.tsv`, `${manifest.join('\n')}\n`);
