import { expect } from 'chai';
import { exactTitleMatches, titleKey } from '../../src/knowledge/exactTitle.js';
import { startTestApp, type TestApp } from '../support/testApp.js';

describe('exact title lookups', () => {
  it('compare titles without their section numbers, case, punctuation or Arabic letter variants', () => {
    expect(titleKey('8.1.2. Configuring the Keyboard')).to.equal('configuring the keyboard');
    expect(titleKey('Chapter 10. Network Infrastructure')).to.equal('network infrastructure');
    expect(titleKey('فصل 10. البنية التحتية للشبكات')).to.equal(titleKey('البنيه التحتيه للشبكات'));
    expect(titleKey('Python 3 support')).to.equal('python 3 support');
    const candidates = [{ heading: '4.3. After the First Boot' }, { heading: 'Boot loaders' }];
    expect(exactTitleMatches('after the first boot', candidates)).to.deep.equal([candidates[0]]);
    expect(exactTitleMatches('first boot', candidates)).to.deep.equal([]);
    expect(exactTitleMatches('4.', candidates)).to.deep.equal([]);
    const nested = {
      heading: '9.5.2.2. Syntax of the Actions',
      sectionPath: ['9.5. syslog', '9.5.2. The Configuration File'],
    };
    expect(exactTitleMatches('The configuration file', [nested])).to.deep.equal([nested]);
  });

  describe('in /search, with a dense half weighed above the lexical one', () => {
    let app: TestApp;
    before(async () => {
      app = await startTestApp({ env: { SEARCH_DENSE_WEIGHT: '3' } });
      const keyboardy = [
        '# Input devices',
        '',
        ...Array.from(
          { length: 6 },
          () =>
            'Configuring the keyboard layout, configuring the keyboard model and configuring the keyboard options.',
        ),
        '',
        '# أجهزة الإدخال',
        '',
        ...Array.from({ length: 6 }, () => 'ضبط لوحة المفاتيح وتخطيط لوحة المفاتيح وخيارات لوحة المفاتيح.'),
      ].join('\n');
      const titled = [
        '# Configuring the Keyboard',
        '',
        'Run dpkg-reconfigure for the console-setup package and answer its questions.',
        '',
        '# ضبط لوحة المفاتيح',
        '',
        'شغّل الأمر dpkg-reconfigure لحزمة console-setup وأجب عن أسئلتها.',
      ].join('\n');
      for (const [name, text] of [
        ['devices.md', keyboardy],
        ['keyboard.md', titled],
      ] as const)
        await app.http.post('/api/v1/upload').attach('file', Buffer.from(text), name).expect(200);
    });
    after(() => app.stop());

    it('rank the section a query names word for word first, in English and in Arabic', async () => {
      for (const [query, heading] of [
        ['Configuring the Keyboard', 'Configuring the Keyboard'],
        ['ضبط لوحة المفاتيح', 'ضبط لوحة المفاتيح'],
      ]) {
        const { body } = await app.http.post('/api/v1/search').send({ query, top_k: 3 }).expect(200);
        const first = body.results[0] as { source: string; metadata: { section_path: string[] } };
        expect(first.source).to.match(/keyboard\.md$/);
        expect(first.metadata.section_path.at(-1)).to.equal(heading);
      }
    });

    it('leave a query that names no heading to the fused halves', async () => {
      const { body } = await app.http
        .post('/api/v1/search')
        .send({ query: 'keyboard layout model options', top_k: 3 })
        .expect(200);
      expect(body.results[0].source).to.match(/devices\.md$/);
    });
  });
});
