/**
 * The first table of BENCHMARKS.md: which figures it holds, the command behind each, how each figure is
 * read off that command's output, and how the table is written from the recorded results.
 *
 * @remarks
 * Pure, so that the table is a function of `bench/results.json` alone: `npm run bench:report -- --render`
 * writes the same bytes from the same file on any machine, and a unit test holds the page to the file.
 * Each job is one command, run from the repository's root exactly as the table shows it (plus, where the
 * command has one, the flag that makes it print JSON); a job may give several rows. A job is *slow* when
 * it needs the test host or a PostgreSQL server, or takes minutes: the report reads its rows from the
 * results file unless asked to run it. The parsers read a command's output by the names its rows print,
 * never by position, and say which name was missing, so a renamed benchmark row fails loudly here.
 */

/** What a job needs besides the repository. */
export type Need = 'outcomes' | 'prompts' | 'postgres';

/** One row of the table as recorded in `bench/results.json`. */
export interface RecordedRow {
  /** The figure as the table shows it. */
  figure: string;
  /** The commit it was measured at (short hash; `+` when the tree had uncommitted changes). */
  commit: string;
  /** The day it was measured, YYYY-MM-DD. */
  date: string;
  /** For a timing: the 1-minute load average while the job ran, e.g. `3.1–4.0`. */
  load?: string;
}

export interface RecordedResults {
  rows: Record<string, RecordedRow>;
}

/** Where a job's output comes from when it runs. */
export interface JobOutput {
  stdout: string;
  /** Reads a file under the repository's root, or undefined when it is not there. */
  file(path: string): string | undefined;
  /** A file's size in bytes, or undefined when it is not there. */
  size(path: string): number | undefined;
}

export interface ReportJob {
  id: string;
  /** The command as the table shows it, run from the repository's root. */
  command: string;
  /** Appended when the report runs it: the flag that makes the command print JSON, if it has one. */
  machineSuffix?: string;
  slow: boolean;
  /** A timing, so its row says the load it was measured under; the others are the same on any machine. */
  timed: boolean;
  needs: Need[];
  /** The rows this job gives, in table order; a row may need more than its job (the prompts' text). */
  rows: { id: string; what: string; needs?: Need[] }[];
  /** Each row's figure from the output; a row it cannot read is left out and said in `missing`. */
  read(output: JobOutput): { figures: Record<string, string>; missing: Record<string, string> };
}

/** Where the recorded outcomes are for every command of the table, relative to the repository's root. */
export const OUTCOMES = '../shared/data/cascades-9-models.jsonl';
/** The prompts' text beside them (`node scripts/prompts.mjs`), which the per-prompt signal reads. */
export const PROMPTS = '../shared/data/cascades-9-models.prompts.jsonl';
/** The recorded results, relative to the repository's root. */
export const RESULTS_FILE = 'bench/results.json';
export const BEGIN_MARK = '<!-- bench:report: written by `npm run bench:report` from bench/results.json; edit neither by hand -->';
export const END_MARK = '<!-- /bench:report -->';

const fixed = (value: number, digits: number): string => value.toFixed(digits);
const percent = (share: number): string => `${(100 * share).toFixed(1)}%`;
const grouped = (value: number): string => Math.round(value).toLocaleString('en');

/** The JSON object `rung replay --seeds N --json` prints, as far as the table reads it. */
interface ReplayAggregate {
  mean: { policy: { accuracy: number; cost: number }; onlineLearner: { accuracy: number; cost: number } };
  sd: { policy: { accuracy: number; cost: number } };
  bestSingle: { model: string; cost: number };
}

/**
 * "0.9524 ± 0.0018 at 27.9% ± 1.1% of gpt-4o's cost; simple learner 0.9505 at 30.7%".
 *
 * @param learner How to name the simple learner beside Rung: under the learned confidence check it has
 * no plan to learn into and keeps one fixed threshold, which the row must say.
 */
export function replayFigure(stdout: string, learner = 'simple learner'): string {
  const aggregate = JSON.parse(lastLine(stdout)) as ReplayAggregate;
  const best = aggregate.bestSingle.cost;
  const { policy, onlineLearner } = aggregate.mean;
  return (
    `${fixed(policy.accuracy, 4)} ± ${fixed(aggregate.sd.policy.accuracy, 4)} at ${percent(policy.cost / best)} ± ${percent(aggregate.sd.policy.cost / best)} ` +
    `of ${aggregate.bestSingle.model}'s cost; ${learner} ${fixed(onlineLearner.accuracy, 4)} at ${percent(onlineLearner.cost / best)}`
  );
}

/** The JSON object `node scripts/quality.mjs --json` prints. */
interface QualityJson {
  seeds: number[];
  lines: {
    name: string;
    rung: { accuracy: number; accuracySd: number; share: number; shareSd: number };
    learner: { accuracy: number; share: number };
    beatsLearner: boolean;
  }[];
}

/** The world shaped like the unseen eleven-model data, named in the worlds' row. */
const SHOWN_WORLD = 'eleven-models';

/** "ahead of the simple learner on 8 of 9 worlds; eleven-models 0.9749 ± 0.0019 at 9.7% ± 0.4% (learner 0.9738 at 11.4%)". */
export function worldsFigure(stdout: string): string {
  const figures = JSON.parse(lastLine(stdout)) as QualityJson;
  const ahead = figures.lines.filter((line) => line.beatsLearner).length;
  const shown = figures.lines.find((line) => line.name === SHOWN_WORLD);
  if (!shown) throw new Error(`node scripts/quality.mjs printed no world named ${SHOWN_WORLD}`);
  return (
    `at least as accurate as the simple learner and no dearer on ${ahead} of ${figures.lines.length} worlds; ` +
    `${SHOWN_WORLD} ${fixed(shown.rung.accuracy, 4)} ± ${fixed(shown.rung.accuracySd, 4)} at ${percent(shown.rung.share)} ± ${percent(shown.rung.shareSd)} ` +
    `(learner ${fixed(shown.learner.accuracy, 4)} at ${percent(shown.learner.share)})`
  );
}

/** A row of a markdown table a benchmark printed: its cells by column, found by its first cell and optionally its second. */
export function tableRow(stdout: string, name: string, size?: string): string[] | undefined {
  for (const line of stdout.split('\n')) {
    if (!line.startsWith('|')) continue;
    const cells = line
      .split('|')
      .slice(1, -1)
      .map((cell) => cell.trim());
    if (cells[0] === name && (size === undefined || cells[1] === size)) return cells;
  }
  return undefined;
}

/** The first number in a cell, commas read as thousands separators. */
function numberIn(cell: string | undefined): number {
  const match = /-?[\d,]*\.?\d+/.exec(cell ?? '');
  if (!match) throw new Error(`no number in ${JSON.stringify(cell)}`);
  return Number(match[0].replace(/,/g, ''));
}

/** A value of the `other` column of `npm run bench`'s table, `key value, key value`. */
function otherValue(cell: string | undefined, key: string): number | undefined {
  const match = new RegExp(`(?:^|, )${key} (-?[\\d.]+)`).exec(cell ?? '');
  return match ? Number(match[1]) : undefined;
}

/** Builds a job's `read` from per-row readers; a reader that throws leaves its row out, with the reason. */
function readers(
  rows: Record<string, (output: JobOutput) => string>,
): (output: JobOutput) => { figures: Record<string, string>; missing: Record<string, string> } {
  return (output) => {
    const figures: Record<string, string> = {};
    const missing: Record<string, string> = {};
    for (const [id, read] of Object.entries(rows)) {
      try {
        figures[id] = read(output);
      } catch (error) {
        missing[id] = error instanceof Error ? error.message : String(error);
      }
    }
    return { figures, missing };
  };
}

/** A row of `npm run bench`'s table or say it was not printed. */
function benchRow(stdout: string, name: string, size?: string): string[] {
  const row = tableRow(stdout, name, size);
  if (!row) throw new Error(`the benchmark printed no row "${name}"${size ? ` at ${size}` : ''}`);
  return row;
}

const replayCommand = (flags: string): string => `npm run -s rung -- replay ${OUTCOMES} --split test --seeds 5 ${flags}`;

/** What the simple learner keeps under the learned confidence check, for its rows. */
const FIXED_THRESHOLD_LEARNER = 'simple learner with one fixed threshold (−0.1)';

function replayJob(id: string, flags: string, what: string, learner?: string): ReportJob {
  return {
    id,
    command: replayCommand(flags),
    machineSuffix: ' --json',
    slow: false,
    timed: false,
    needs: ['outcomes'],
    rows: [{ id, what }],
    read: readers({ [id]: (output) => replayFigure(output.stdout, learner) }),
  };
}

/** Every job of the table, in its order. */
export const JOBS: ReportJob[] = [
  // Money only (the wait valued at 0), as every quality figure was before the wait counted: the rows
  // compare across commits, and the next row says what the default wait worth changes.
  replayJob(
    'quality-test-perfect',
    '--verifier perfect --wait-worth 0',
    'Quality, 9-model `test` split (4,048 prompts), perfect check, quality, money only (`--wait-worth 0`)',
  ),
  replayJob(
    'quality-test-wait',
    '--verifier perfect',
    'The same at the default wait worth, $0.10 a minute: money spent to cut the user’s wait ([The user’s wait](docs/how-it-decides.md#the-users-wait))',
  ),
  replayJob('quality-test-economy', '--verifier perfect --tradeoff economy --wait-worth 0', 'Quality, `test` split, perfect check, economy, money only'),
  replayJob('quality-test-noisy', '--verifier noisy:0.05,0.05 --wait-worth 0', 'Quality, `test` split, noisy check (5% false passes, 5% false fails), money only'),
  replayJob('quality-test-confidence', '--verifier confidence', 'The confidence check, learned per model, on the `test` split, quality', FIXED_THRESHOLD_LEARNER),
  replayJob('quality-test-confidence-economy', '--verifier confidence --tradeoff economy', 'The confidence check, `test` split, economy', FIXED_THRESHOLD_LEARNER),
  {
    id: 'quality-worlds-perfect',
    command: 'node scripts/quality.mjs --worlds --wait-worth 0',
    machineSuffix: ' --json',
    slow: false,
    timed: false,
    needs: [],
    rows: [{ id: 'quality-worlds-perfect', what: 'Quality on the generated worlds, perfect check (seeds 1–5, each its own world), money only' }],
    read: readers({ 'quality-worlds-perfect': (output) => worldsFigure(output.stdout) }),
  },
  {
    id: 'quality-worlds-noisy',
    command: 'node scripts/quality.mjs --worlds --noisy --wait-worth 0',
    machineSuffix: ' --json',
    slow: false,
    timed: false,
    needs: [],
    rows: [{ id: 'quality-worlds-noisy', what: 'Quality on the generated worlds, noisy check, money only' }],
    read: readers({ 'quality-worlds-noisy': (output) => worldsFigure(output.stdout) }),
  },
  {
    id: 'routing',
    command: 'RUNG_BENCH_ONLY=routing npm run -s bench',
    slow: false,
    timed: true,
    needs: ['outcomes'],
    rows: [
      { id: 'routing-overhead', what: 'Routing overhead per call: rank, plan every rung, learn (replay of 5,533 prompts × 5)' },
      { id: 'routing-overhead-signal', what: 'The same with the per-prompt signal, reading the prompts’ text', needs: ['prompts'] },
    ],
    read: readers({
      'routing-overhead': (output) => microFigure(benchRow(output.stdout, 'routing overhead per call (µs)')),
      'routing-overhead-signal': (output) => microFigure(benchRow(output.stdout, 'routing overhead per call, with the per-prompt signal (µs)')),
    }),
  },
  {
    id: 'ledger',
    command: 'RUNG_BENCH_ONLY=ledger npm run -s bench',
    slow: false,
    timed: true,
    needs: [],
    rows: [
      { id: 'ledger-open', what: 'Workspace ledger: open and read the last 50 decisions, 100k recorded (target ≤ 200 ms)' },
      { id: 'ledger-save', what: 'Workspace ledger: batch save (20 observations, a spawn, 20 decision rows), 100k recorded (target p99 ≤ 50 ms)' },
    ],
    read: readers({
      'ledger-open': (output) => msFigure(benchRow(output.stdout, 'ledger.open+last50', '100000')),
      'ledger-save': (output) => msFigure(benchRow(output.stdout, 'batch-save (ledger + decisions)', '100000')),
    }),
  },
  {
    id: 'panel',
    command: 'RUNG_BENCH_ONLY=panel npm run -s bench',
    slow: false,
    timed: true,
    needs: [],
    rows: [{ id: 'panel-snapshot', what: 'Ledger view: `ready` → snapshot of the newest 50 of 100k decisions, in the extension host’s code' }],
    read: readers({
      'panel-snapshot': (output) => {
        const row = tableRow(output.stdout, 'panel ready -> snapshot of the newest 50 rows (ms)');
        if (!row) throw new Error('the benchmark printed no row "panel ready -> snapshot of the newest 50 rows (ms)"');
        const cold = otherValue(row[4], 'coldMs');
        return `${msFigure(row)} warm${cold === undefined ? '' : `; the first, cold, ${grouped(cold)} ms`}`;
      },
    }),
  },
  {
    id: 'host',
    command: 'npm run -s test:host',
    slow: true,
    timed: true,
    needs: [],
    rows: [
      { id: 'activation', what: '`activate()` in code-server 1.139 (Rung’s log: `rung activation: N ms`)' },
      { id: 'panel-first-paint', what: 'Ledger view: Open Ledger to its first row on screen, 100k decisions, real VS Code' },
    ],
    read: readers({
      activation: (output) => {
        const log = output.file('test-results/host/host.console.log') ?? '';
        const match = /rung activation: ([\d.]+) ms/.exec(log);
        if (!match) throw new Error('test-results/host/host.console.log holds no "rung activation: N ms" line');
        return `${Number(match[1]).toFixed(1)} ms in the extension-host suite's window`;
      },
      'panel-first-paint': (output) => {
        const text = output.file('test-results/panel-first-paint.json');
        if (!text) throw new Error('no test-results/panel-first-paint.json: the check of the ledger panel on 100k decisions did not finish');
        const paint = JSON.parse(text) as { decisions: number; firstPaintMs: number };
        return `${grouped(paint.firstPaintMs)} ms at ${grouped(paint.decisions)} decisions`;
      },
    }),
  },
  {
    id: 'team',
    command: 'node scripts/team-bench.mjs',
    slow: true,
    timed: true,
    needs: ['postgres'],
    rows: [
      { id: 'team-flush', what: 'Team ledger on PostgreSQL: flush 20 observations and read what is new, 100k on the server' },
      { id: 'team-open', what: 'Team ledger: open (connect, check the schema, read the team), 100k on the server' },
    ],
    read: readers({
      'team-flush': (output) => msFigure(benchRow(output.stdout, 'flush: send 20 observations and read what is new (ms)', '100,000')),
      'team-open': (output) => msFigure(benchRow(output.stdout, 'open: connect, check the schema, read the team (ms)', '100,000')),
    }),
  },
  {
    id: 'extension-load',
    command: 'node esbuild.mjs --production && node scripts/measureExtensionLoad.mjs 15',
    slow: false,
    timed: true,
    needs: [],
    rows: [{ id: 'extension-load', what: 'Loading `dist/extension.js` (production build) before `activate()`, 15 fresh Node processes' }],
    read: readers({
      'extension-load': (output) => {
        const match = /dist\/extension\.js (\d+) KB: load median ([\d.]+) ms, min ([\d.]+) ms/.exec(output.stdout);
        if (!match) throw new Error('scripts/measureExtensionLoad.mjs printed no "load median … ms, min … ms" line');
        return `median ${match[2]} ms, min ${match[3]} ms (${match[1]} KB)`;
      },
    }),
  },
  {
    id: 'package',
    command: 'npm run -s package',
    slow: false,
    timed: false,
    needs: [],
    rows: [{ id: 'package', what: 'The extension package, `rung.vsix` (ceiling 3 MB)' }],
    read: readers({
      package: (output) => {
        const match = /Packaged: \S+ \((\d+) files, [\d.]+ \w+\)/.exec(output.stdout);
        const size = output.size('rung.vsix');
        if (!match || size === undefined) throw new Error('vsce printed no "Packaged: … (N files, …)" line, or left no rung.vsix');
        return `${grouped(size)} bytes (${(size / 1024 / 1024).toFixed(2)} MiB), ${match[1]} files`;
      },
    }),
  },
];

/** "median 145 µs, p99 736 µs over 27,665 calls". */
function microFigure(row: string[]): string {
  return `median ${grouped(numberIn(row[2]))} µs, p99 ${grouped(numberIn(row[3]))} µs over ${grouped(numberIn(row[1]))} calls`;
}

/** "median 1.8 ms, p99 8.1 ms". */
function msFigure(row: string[]): string {
  const short = (value: number): string => (value >= 100 ? grouped(value) : String(Number(value.toPrecision(2))));
  return `median ${short(numberIn(row[2]))} ms, p99 ${short(numberIn(row[3]))} ms`;
}

function lastLine(stdout: string): string {
  const lines = stdout.trim().split('\n');
  return lines[lines.length - 1] ?? '';
}

/** Every row of the table, in order, with its job. */
export function reportRows(jobs: readonly ReportJob[] = JOBS): { id: string; what: string; job: ReportJob }[] {
  return jobs.flatMap((job) => job.rows.map((row) => ({ ...row, job })));
}

/** The commit most rows were measured at: the one the table is "on". */
export function tableCommit(results: RecordedResults): string | undefined {
  const counts = new Map<string, number>();
  for (const row of Object.values(results.rows)) counts.set(row.commit, (counts.get(row.commit) ?? 0) + 1);
  return [...counts.entries()].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))[0]?.[0];
}

/** The table, between its marks, from the recorded results alone. */
export function renderTable(results: RecordedResults, jobs: readonly ReportJob[] = JOBS): string {
  const commit = tableCommit(results);
  const rows = reportRows(jobs);
  const elsewhere = rows.filter((row) => results.rows[row.id] && results.rows[row.id]?.commit !== commit).length;
  const absent = rows.filter((row) => !results.rows[row.id]).length;
  const lines = [
    BEGIN_MARK,
    '',
    `**Today's figures**, ${commit ? `at commit \`${commit}\`` : 'not measured yet'}${elsewhere ? ` (${elsewhere} row${elsewhere === 1 ? '' : 's'} at another, as marked)` : ''}${absent ? `; ${absent} row${absent === 1 ? '' : 's'} never measured` : ''}. ` +
      'Written by `npm run bench:report`, which re-runs the rows that take minutes and reads the test host’s and ' +
      'PostgreSQL’s from `bench/results.json` (`npm run bench:report -- --all` re-runs those too). Commands run from the ' +
      'repository root with the recorded outcomes at `../shared/data`; quality is the mean ± sd over seeds 1–5, one pass ' +
      'from an empty ledger; a timing gives the 1-minute load average of the 2-core machine while it ran. How each ' +
      'figure came about, and every earlier one, is under [History](#history).',
    '',
    '| what | figure | command | measured |',
    '| --- | --- | --- | --- |',
  ];
  for (const row of rows) {
    const recorded = results.rows[row.id];
    const measured = recorded
      ? [recorded.commit === commit ? '' : `at \`${recorded.commit}\``, recorded.date, row.job.timed && recorded.load ? `load ${recorded.load}` : '']
          .filter(Boolean)
          .join(', ')
      : 'never measured';
    lines.push(`| ${row.what} | ${recorded ? escapeCell(recorded.figure) : '—'} | \`${row.job.command}\` | ${measured} |`);
  }
  lines.push('', END_MARK);
  return lines.join('\n');
}

function escapeCell(text: string): string {
  return text.replace(/\|/g, '\\|');
}

/**
 * The page with its table replaced (or, on a page without the marks, put after its title line), every
 * other byte kept: the rest of the page is other people's prose, which the report never reads.
 */
export function placeTable(page: string, table: string): string {
  const begin = page.indexOf(BEGIN_MARK);
  const end = page.indexOf(END_MARK);
  if (begin !== -1 && end > begin) return page.slice(0, begin) + table + page.slice(end + END_MARK.length);
  const titleEnd = page.indexOf('\n');
  return titleEnd === -1 ? `${page}\n\n${table}\n` : `${page.slice(0, titleEnd + 1)}\n${table}\n${page.slice(titleEnd + 1)}`;
}
