import { expect } from 'chai';
import { normalizeArabicLetters, normalizeForIndex } from '../../src/text/normalize.js';

describe('normalizeForIndex', () => {
  it('unifies alef variants, alef maqsura, ta marbuta and removes tatweel and harakat', () => {
    expect(normalizeForIndex('أَحْمَد إِلى آمال ٱلمدرسة')).to.equal('احمد الي امال المدرسه');
    expect(normalizeForIndex('مُسْتَشْفَى الـــمدينةِ')).to.equal('مستشفي المدينه');
    expect(normalizeForIndex('القُرْآنُ')).to.equal('القران');
  });

  it('makes spelling variants of the same Arabic words compare equal', () => {
    const variants = [
      'مكتبة المدرسة الأولى',
      'مكتبه المدرسه الاولي',
      'مكتبـــة المَدْرَسَة الأُولى',
      'ﻣﻜﺘﺒﺔ ﺍﻟﻤﺪﺭﺳﺔ ﺍﻷﻭﻟﻰ',
    ];
    const normalised = new Set(variants.map(normalizeForIndex));
    expect([...normalised]).to.deep.equal(['مكتبه المدرسه الاولي']);
  });

  it('drops the hamza on waw and ya as on alef, so a word typed without it compares equal', () => {
    expect(normalizeForIndex('مسؤول سؤال شؤون قائمة بيئة رئيس')).to.equal('مسوول سوال شوون قايمه بييه رييس');
    expect(normalizeForIndex('مسوول سوال شوون قايمة بيئه رييس')).to.equal('مسوول سوال شوون قايمه بييه رييس');
    // The seat stays, as on alef: the two spellings of "responsible" still differ.
    expect(normalizeForIndex('مسئول')).to.equal('مسيول');
    expect(normalizeForIndex('ء')).to.equal('ء');
  });

  it('maps Persian yeh and keheh and Arabic-Indic digits', () => {
    expect(normalizeForIndex('کتابی ٢٠٢٤ ۱۵')).to.equal('كتابي 2024 15');
  });

  it('lower-cases, folds Latin diacritics and applies NFKC', () => {
    expect(normalizeForIndex('Café CRÈME Ångström naïve ﬁnal ＡＢＣ')).to.equal(
      'cafe creme angstrom naive final abc',
    );
  });

  it('keeps marks that are letters in other scripts and collapses white space', () => {
    expect(normalizeForIndex('  हिन्दी   भाषा\u200F ')).to.equal('हिन्दी भाषा');
    expect(normalizeForIndex('Москва  Йошкар-Ола')).to.equal('москва йошкар-ола');
  });

  it('collapses every run of white space to one space, whatever the run is made of', () => {
    const pieces = ['a', 'bc', ' ', '  ', '\t', '\n', '\r\n', '\u00a0', '\u2003', '\u3000', ' \n ', '\v\f'];
    let state = 7;
    for (let sample = 0; sample < 500; sample += 1) {
      let text = '';
      for (let i = 0; i < 12; i += 1) {
        state = (Math.imul(state, 1_103_515_245) + 12_345) >>> 0;
        text += pieces[state % pieces.length];
      }
      const expected = text.normalize('NFKC').toLowerCase().replace(/\s+/gu, ' ').trim();
      expect(normalizeForIndex(text), JSON.stringify(text)).to.equal(expected);
    }
  });

  it('leaves text without Arabic to the other steps', () => {
    expect(normalizeArabicLetters('plain text')).to.equal('plain text');
  });
});
