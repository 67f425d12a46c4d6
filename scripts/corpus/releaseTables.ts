import { readFileSync } from 'node:fs';

/** The corpus's two release CSVs, by the sheet name a workbook made of them gives each. */
export function releaseTables(corpus: string): Array<{ name: string; rows: string[][] }> {
  return [
    ['Debian', `${corpus}csv-debian-releases.csv`],
    ['Ubuntu', `${corpus}csv-ubuntu-releases.csv`],
  ].map(([name, file]) => ({
    name: name!,
    rows: readFileSync(file!, 'utf8')
      .trim()
      .split('\n')
      .map((line) => line.split(',')),
  }));
}
