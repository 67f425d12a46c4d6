/**
 * The import rules of `.dependency-cruiser.cjs`, checked on src: no import circles, a pure domain, a
 * ground-floor text module, ports below their users, HTTP away from engine adapters. A second test
 * runs the same rules on a small tree that breaks each of them, so a rule that stops matching fails
 * here instead of passing silently.
 */
import { execFile } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'chai';

const root = join(import.meta.dirname, '..');
const cli = join(root, 'node_modules', 'dependency-cruiser', 'bin', 'dependency-cruise.mjs');
const RULES = [
  'no-circular',
  'domain-is-pure',
  'text-is-the-ground-floor',
  'ports-do-not-import-their-users',
  'http-reaches-engines-through-ports',
  'http-goes-through-use-cases',
];

interface Violation {
  from: string;
  to: string;
  rule: { name: string };
}
interface CruiseSummary {
  violations: Violation[];
  totalCruised: number;
  ruleSetUsed: { forbidden?: Array<{ name: string }> };
}

async function cruise(cwd: string): Promise<CruiseSummary> {
  // The cruiser exits non-zero when it finds violations; its JSON report is on stdout either way.
  const { stdout } = await promisify(execFile)(
    process.execPath,
    [cli, 'src', '--config', '.dependency-cruiser.cjs', '--output-type', 'json'],
    { cwd, maxBuffer: 256 * 1024 * 1024 },
  ).catch((error: { stdout?: string }) => {
    if (typeof error.stdout === 'string' && error.stdout.startsWith('{')) return { stdout: error.stdout };
    throw error;
  });
  return (JSON.parse(stdout) as { summary: CruiseSummary }).summary;
}

const describeViolation = (v: Violation): string => `${v.rule.name}: ${v.from} → ${v.to}`;

describe('the architecture’s import rules', function () {
  this.timeout(120_000);

  it('hold on src: no circles and no layer violations', async () => {
    const summary = await cruise(root);
    expect((summary.ruleSetUsed.forbidden ?? []).map((rule) => rule.name)).to.have.members(RULES);
    expect(summary.totalCruised).to.be.greaterThan(400);
    expect(summary.violations.map(describeViolation)).to.deep.equal([]);
  });

  it('catch a tree that breaks each rule', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'archivist-depcruise-'));
    try {
      const files: Record<string, string> = {
        'src/domain/task/events.ts':
          "import { readFileSync } from 'node:fs';\nexport const read = readFileSync;\n",
        'src/text/words.ts': "import { route } from '../http/route.js';\nexport const words = route;\n",
        'src/readStore/filter.ts':
          "import { ingest } from '../knowledge/ingest.js';\nexport const filter = ingest;\n",
        'src/knowledge/ingest.ts': "import { stage } from './pipeline.js';\nexport const ingest = stage;\n",
        'src/knowledge/pipeline.ts':
          "import { ingest } from './ingest.js';\nexport const stage = (): unknown => ingest;\n",
        'src/http/route.ts':
          "import { open } from '../readStore/sqliteReadStore.js';\nimport { createTask } from '../commands/newTask.js';\nexport const route = [open, createTask];\n",
        'src/commands/newTask.ts': 'export const createTask = 1;\n',
        'src/readStore/sqliteReadStore.ts': 'export const open = 1;\n',
      };
      for (const [path, text] of Object.entries(files)) {
        mkdirSync(dirname(join(dir, path)), { recursive: true });
        writeFileSync(join(dir, path), text);
      }
      copyFileSync(join(root, '.dependency-cruiser.cjs'), join(dir, '.dependency-cruiser.cjs'));
      writeFileSync(
        join(dir, 'tsconfig.json'),
        JSON.stringify({
          compilerOptions: { module: 'NodeNext', moduleResolution: 'NodeNext' },
          include: ['src'],
        }),
      );
      const broken = new Set((await cruise(dir)).violations.map((violation) => violation.rule.name));
      expect([...broken].sort()).to.deep.equal([...RULES].sort());
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
