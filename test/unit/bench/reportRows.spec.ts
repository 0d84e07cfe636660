import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  BEGIN_MARK,
  END_MARK,
  JOBS,
  placeTable,
  renderTable,
  replayFigure,
  reportRows,
  RESULTS_FILE,
  tableRow,
  worldsFigure,
  type JobOutput,
  type RecordedResults,
} from '../../../src/bench/reportRows';

const ROOT = join(__dirname, '../../..');

function output(stdout: string, files: Record<string, string> = {}, sizes: Record<string, number> = {}): JobOutput {
  return { stdout, file: (path) => files[path], size: (path) => sizes[path] };
}

function job(id: string) {
  const found = JOBS.find((candidate) => candidate.id === id);
  if (!found) throw new Error(`no job ${id}`);
  return found;
}

const REPLAY = JSON.stringify({
  seeds: [1, 2, 3, 4, 5],
  mean: { policy: { accuracy: 0.95237, cost: 0.4286, attempts: 9000 }, onlineLearner: { accuracy: 0.95054, cost: 0.4716, attempts: 9100 } },
  sd: { policy: { accuracy: 0.00181, cost: 0.0169 } },
  bestSingle: { model: 'gpt-4o', accuracy: 0.835, cost: 1.536 },
});

describe("BENCHMARKS.md's first table", () => {
  it('reads a replay as accuracy and cost against the best single model, beside the simple learner', () => {
    expect(replayFigure(`rung replay: seed 1…\n${REPLAY}\n`)).toBe("0.9524 ± 0.0018 at 27.9% ± 1.1% of gpt-4o's cost; simple learner 0.9505 at 30.7%");
  });

  it('reads the worlds as how many Rung is ahead on, and the eleven-model world', () => {
    const line = (name: string, beats: boolean) => ({
      name,
      items: 3150,
      rung: { accuracy: 0.97492, accuracySd: 0.0019, share: 0.0972, shareSd: 0.0041 },
      learner: { accuracy: 0.9738, share: 0.1142 },
      beatsLearner: beats,
      seedsAhead: 5,
    });
    const stdout = JSON.stringify({ seeds: [1, 2, 3, 4, 5], lines: [line('drift', true), line('no-drift', false), line('eleven-models', true)] });
    expect(worldsFigure(stdout)).toBe(
      'at least as accurate as the simple learner and no dearer on 2 of 3 worlds; eleven-models 0.9749 ± 0.0019 at 9.7% ± 0.4% (learner 0.9738 at 11.4%)',
    );
    expect(() => worldsFigure(JSON.stringify({ seeds: [1], lines: [line('drift', true)] }))).toThrow('no world named eleven-models');
  });

  it("finds a benchmark's row by its name and size, not its place", () => {
    const stdout = '| measurement | n | median | p99 | other |\n| --- | ---: | ---: | ---: | --- |\n| ledger.open+last50 | 1000 | 0.9 | 3 | |\n| ledger.open+last50 | 100000 | 0.7 | 2.1 | ledgerBytes 1 |\n';
    expect(tableRow(stdout, 'ledger.open+last50', '100000')).toEqual(['ledger.open+last50', '100000', '0.7', '2.1', 'ledgerBytes 1']);
    expect(tableRow(stdout, 'ledger.open+last50', '10')).toBeUndefined();
    const ledger = job('ledger').read(output(stdout));
    expect(ledger.figures).toEqual({ 'ledger-open': 'median 0.7 ms, p99 2.1 ms' });
    expect(ledger.missing['ledger-save']).toBe('the benchmark printed no row "batch-save (ledger + decisions)" at 100000');
  });

  it('reads the routing, panel, team, load and package rows from what their commands print', () => {
    const routing = job('routing').read(output('| routing overhead per call (µs) | 27665 | 145.2 | 736.4 | |\n'));
    expect(routing.figures).toEqual({ 'routing-overhead': 'median 145 µs, p99 736 µs over 27,665 calls' });
    const panel = job('panel').read(output('| panel ready -> snapshot of the newest 50 rows (ms) | 100000 | 1.234 | 20.5 | cpuMedianMs 0.9, coldMs 2369.4, replyBytes 37000 |\n'));
    expect(panel.figures).toEqual({ 'panel-snapshot': 'median 1.2 ms, p99 21 ms warm; the first, cold, 2,369 ms' });
    const team = job('team').read(
      output(
        '| flush: send 20 observations and read what is new (ms) | 100,000 | 1.71 | 15.6 |\n| open: connect, check the schema, read the team (ms) | 100,000 | 706.1 | 901.7 |\n',
      ),
    );
    expect(team.figures).toEqual({ 'team-flush': 'median 1.7 ms, p99 16 ms', 'team-open': 'median 706 ms, p99 902 ms' });
    const load = job('extension-load').read(output('dist/extension.js 490 KB: load median 101.2 ms, min 58.0 ms, max 300.1 ms over 15 fresh processes (node v20.20.0)\n'));
    expect(load.figures).toEqual({ 'extension-load': 'median 101.2 ms, min 58.0 ms (490 KB)' });
    const packaged = job('package').read(output(' DONE  Packaged: rung.vsix (20 files, 1.62 MB)\n', {}, { 'rung.vsix': 1694854 }));
    expect(packaged.figures).toEqual({ package: '1,694,854 bytes (1.62 MiB), 20 files' });
  });

  it("reads the test host's rows from the files its run leaves, and says which file is missing", () => {
    const host = job('host').read(output('', { 'test-results/host/host.console.log': '[log] rung activation: 18.84 ms\n', 'test-results/panel-first-paint.json': '{"decisions":100000,"firstPaintMs":1439}' }));
    expect(host.figures).toEqual({ activation: "18.8 ms in the extension-host suite's window", 'panel-first-paint': '1,439 ms at 100,000 decisions' });
    expect(job('host').read(output('')).missing).toEqual({
      activation: 'test-results/host/host.console.log holds no "rung activation: N ms" line',
      'panel-first-paint': 'no test-results/panel-first-paint.json: the check of the ledger panel on 100k decisions did not finish',
    });
  });

  it('writes the same table from the same results, naming the commit most rows share and marking the others', () => {
    const results: RecordedResults = {
      rows: {
        'quality-test-perfect': { figure: 'a | b', commit: 'abc1234', date: '2026-12-05' },
        'ledger-open': { figure: 'median 1 ms', commit: 'abc1234', date: '2026-12-05', load: '3.1–4.0' },
        'team-open': { figure: 'median 700 ms', commit: 'def5678', date: '2026-12-04', load: '15.0' },
      },
    };
    const table = renderTable(results);
    expect(renderTable(results)).toBe(table);
    expect(table.startsWith(BEGIN_MARK)).toBe(true);
    expect(table.endsWith(END_MARK)).toBe(true);
    expect(table).toContain("**Today's figures**, at commit `abc1234` (1 row at another, as marked); 16 rows never measured.");
    expect(table).toContain('| a \\| b | `npm run -s rung -- replay ../shared/data/cascades-9-models.jsonl --split test --seeds 5 --verifier perfect --wait-worth 0` | 2026-12-05 |');
    expect(table).toContain('| median 1 ms | `RUNG_BENCH_ONLY=ledger npm run -s bench` | 2026-12-05, load 3.1–4.0 |');
    expect(table).toContain('| median 700 ms | `node scripts/team-bench.mjs` | at `def5678`, 2026-12-04, load 15.0 |');
    expect(table.split('\n').filter((line) => line.startsWith('| ') && !line.startsWith('| what') && !line.startsWith('| ---'))).toHaveLength(reportRows().length);
  });

  it('replaces only what lies between its marks, and puts a first table after the title', () => {
    const table = `${BEGIN_MARK}\nnew\n${END_MARK}`;
    const page = `# Benchmarks\n\n${BEGIN_MARK}\nold\n${END_MARK}\n\n## Someone's section\n\ntext | with bars\n`;
    expect(placeTable(page, table)).toBe(`# Benchmarks\n\n${table}\n\n## Someone's section\n\ntext | with bars\n`);
    expect(placeTable('# Benchmarks\n\n## A section\n', table)).toBe(`# Benchmarks\n\n${table}\n\n## A section\n`);
  });

  it('is on the page exactly as the recorded results write it, so a clean clone regenerates the page', () => {
    const results = JSON.parse(readFileSync(join(ROOT, RESULTS_FILE), 'utf8')) as RecordedResults;
    const page = readFileSync(join(ROOT, 'BENCHMARKS.md'), 'utf8');
    expect(placeTable(page, renderTable(results))).toBe(page);
  });
});
