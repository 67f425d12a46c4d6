import { expect } from 'chai';
import { splitSentences } from '../../src/text/sentences.js';
import { countWords, forEachWord, splitByWords, words } from '../../src/text/words.js';

// Chinese, Japanese and Thai put no space between words, and Chinese and Japanese none between
// sentences: the text module divides them with Intl.Segmenter (words) and the ideographic stops
// (sentences). Without it a Chinese paragraph was one sentence of a handful of "words".

const CHINESE =
  '我们测试了新的过滤系统。结果很好！下一步是什么？我们会继续观察水质。' +
  '他说：“我们明天再来。”然后离开了。报告在下个月发布。';

describe('scripts written without spaces', () => {
  it('Intl.Segmenter is there, with the Chinese, Japanese and Thai data (full ICU)', () => {
    expect(process.versions.icu).to.be.a('string');
    expect(Intl.Segmenter.supportedLocalesOf(['zh', 'ja', 'th'])).to.deep.equal(['zh', 'ja', 'th']);
  });

  describe('splitSentences', () => {
    it('splits a Chinese paragraph at 。！？ without spaces, closing quotes kept', () => {
      expect(splitSentences(CHINESE)).to.deep.equal([
        '我们测试了新的过滤系统。',
        '结果很好！',
        '下一步是什么？',
        '我们会继续观察水质。',
        '他说：“我们明天再来。”',
        '然后离开了。',
        '报告在下个月发布。',
      ]);
    });

    it('splits Japanese after 。 even before a lower-case Latin word, keeping 」 with its sentence', () => {
      expect(
        splitSentences(
          '「圧縮します。」と書いてあります。bin ディレクトリを使います｡zlib.js は速い。\ndefault は false です。',
        ),
      ).to.deep.equal([
        '「圧縮します。」',
        'と書いてあります。',
        'bin ディレクトリを使います｡',
        'zlib.js は速い。',
        'default は false です。',
      ]);
    });

    it('keeps the English and Arabic rules (3.14, example.com, e.g., Dr.) and a run of stops together', () => {
      expect(splitSentences('Dr. Smith saw 3.14 at example.com, e.g. here.版本1.2已发布。好')).to.deep.equal([
        'Dr. Smith saw 3.14 at example.com, e.g. here.版本1.2已发布。',
        '好',
      ]);
      expect(splitSentences('هل يمكن خفض الفاقد؟ نعم.')).to.deep.equal(['هل يمكن خفض الفاقد؟', 'نعم.']);
      expect(splitSentences('等等。。。然后呢?！好吧……再说。')).to.deep.equal([
        '等等。。。',
        '然后呢?！',
        '好吧……再说。',
      ]);
    });

    it('does not take an Arabic word ending in tanween and alef for a one-letter initial', () => {
      expect(splitSentences('كان الأمر معقدًا. من ناحية أخرى، خُزِّن الملف فيزيائيًا. انتهى')).to.deep.equal([
        'كان الأمر معقدًا.',
        'من ناحية أخرى، خُزِّن الملف فيزيائيًا.',
        'انتهى',
      ]);
    });
  });

  describe('words', () => {
    it('divides Chinese, Japanese and Thai runs into words', () => {
      expect(words('我们测试了系统。结果很好！')).to.deep.equal([
        '我们',
        '测试',
        '了',
        '系统',
        '结果',
        '很好',
      ]);
      expect(words('LZSSのマッチ長が短い場合')).to.deep.equal([
        'LZSS',
        'の',
        'マッチ',
        '長',
        'が',
        '短い',
        '場合',
      ]);
      expect(words('ภาษาไทยไม่เว้นวรรคระหว่างคำ')).to.deep.equal([
        'ภาษา',
        'ไทย',
        'ไม่',
        'เว้น',
        'วรรค',
        'ระหว่าง',
        'คำ',
      ]);
    });

    it('counts a Chinese paragraph by its words, not by its clauses', () => {
      expect(countWords(CHINESE)).to.be.at.least(20); // 28 with ICU 78; 12 clauses
      expect(countWords(CHINESE)).to.equal(words(CHINESE).length);
    });

    it('gives the offsets of divided words, around and between other words', () => {
      const text = 'See 第2023年报告 and the well-known ภาษาไทย result (COVID-19).';
      const found: string[] = [];
      forEachWord(text, (start, end) => found.push(text.slice(start, end)));
      expect(found).to.deep.equal(words(text));
      expect(found).to.include.members(['See', 'and', 'well-known', 'ภาษา', 'ไทย', 'result', 'COVID-19']);
      expect(found.join('')).to.not.include(' ');
      expect(found.filter((word) => /[年报告第]/u.test(word)).length).to.be.greaterThan(1);
    });

    it('lets splitByWords cut a long Chinese paragraph into slices within the budget', () => {
      const long = CHINESE.repeat(10);
      const slices = splitByWords(long, 50);
      expect(slices.length).to.be.greaterThan(5);
      for (const slice of slices) expect(countWords(slice)).to.be.at.most(50);
      expect(slices.join('')).to.equal(long);
      expect(slices.reduce((sum, slice) => sum + countWords(slice), 0)).to.equal(countWords(long));
    });

    it('divides a long text as run by run, across the stretches given to the segmenter at once', () => {
      const segmenter = new Intl.Segmenter('en', { granularity: 'word' });
      const RUN = /\p{L}[\p{L}\p{M}\p{N}'’-]*|\p{N}[\p{N}\p{L}\p{M}]*(?:[.,:/]\p{N}+)*/gu;
      const SPACELESS = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Thai}]/u;
      const long = Array.from(
        { length: 400 },
        (_, i) =>
          `${CHINESE}Section ${i}: the well-known ภาษาไทยไม่เว้นวรรค results, 2023年${i}月.${i % 2 ? '\n' : ''}`,
      ).join('');
      const expected = (long.match(RUN) ?? []).flatMap((run) =>
        SPACELESS.test(run)
          ? [...segmenter.segment(run)].filter((part) => part.isWordLike).map((part) => part.segment)
          : [run],
      );
      expect(long.length).to.be.greaterThan(30_000);
      expect(words(long)).to.deep.equal(expected);
      expect(countWords(long)).to.equal(expected.length);
    });

    it('keeps English and Arabic words whole', () => {
      expect(words("The well-known plant's output, COVID-19 — كَتَبَ الطَّالِبُ")).to.deep.equal([
        'The',
        'well-known',
        "plant's",
        'output',
        'COVID-19',
        'كَتَبَ',
        'الطَّالِبُ',
      ]);
    });
  });
});
