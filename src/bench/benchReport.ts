/**
 * `npm run bench:report [-- --all | --only JOB… | --render] [--host-results]`: BENCHMARKS.md's first table.
 *
 * @remarks
 * Runs each job of reportRows.ts whose rows it can produce in minutes (the quality replays, the routing,
 * ledger and panel benchmarks, the bundle's load, the package), records their figures with the commit,
 * the day and the load in `bench/results.json`, and writes the table from that file between its marks in
 * BENCHMARKS.md. The slow jobs (the test host, PostgreSQL) are read from the file unless `--all` or
 * `--only` names them; `--host-results` reads the test host's rows from what the last `npm run test:host`
 * in this folder left in `test-results/` instead of running it. `--render` runs nothing and rewrites the
 * table from the file. It closes by naming the rows it re-ran, the rows it read from the file and not
 * re-ran (with their commit), and the rows it could not produce, each with the reason (no recorded
 * outcomes beside the clone, no PostgreSQL server, a command that failed). Exit 1 when a command it ran
 * failed or printed a figure it could not read; a row it could not run for want of data is not a failure.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import * as z from 'zod';
import {
  JOBS,
  OUTCOMES,
  placeTable,
  PROMPTS,
  renderTable,
  reportRows,
  RESULTS_FILE,
  type JobOutput,
  type Need,
  type RecordedResults,
  type ReportJob,
} from './reportRows';

const USAGE = 'usage: npm run bench:report [-- --all | --only JOB… | --render] [--host-results]';
const PAGE = 'BENCHMARKS.md';
/** How often the load average is read while a job runs, ms. */
const LOAD_SAMPLE_MS = 5_000;

const recordedRow = z.object({ figure: z.string(), commit: z.string(), date: z.string(), load: z.string().optional() });
const recordedResults = z.object({ rows: z.record(z.string(), recordedRow) });

class UsageError extends Error {}

interface Plan {
  run: ReportJob[];
  hostResults: boolean;
}

function readPlan(args: readonly string[]): Plan {
  const known = new Set(['--all', '--render', '--host-results', '--only']);
  const only: string[] = [];
  for (let index = 0; index < args.length; index++) {
    const arg = args[index] as string;
    if (!known.has(arg)) throw new UsageError(`no option ${arg}`);
    if (arg === '--only') {
      const id = args[++index];
      const job = JOBS.find((candidate) => candidate.id === id || candidate.rows.some((row) => row.id === id));
      if (!job) throw new UsageError(`--only ${id ?? ''}: no such job or row (jobs: ${JOBS.map((candidate) => candidate.id).join(', ')})`);
      only.push(job.id);
    }
  }
  const hostResults = args.includes('--host-results');
  if (args.includes('--render')) {
    if (args.length > 1) throw new UsageError('--render runs nothing: give it alone');
    return { run: [], hostResults };
  }
  if (only.length) return { run: JOBS.filter((job) => only.includes(job.id)), hostResults };
  const all = args.includes('--all');
  return { run: JOBS.filter((job) => all || !job.slow || (hostResults && job.id === 'host')), hostResults };
}

function repositoryRoot(): string {
  let folder = __dirname;
  while (!existsSync(join(folder, 'esbuild.mjs'))) {
    const parent = resolve(folder, '..');
    if (parent === folder) throw new Error(`no esbuild.mjs above ${__dirname}`);
    folder = parent;
  }
  return folder;
}

function readResults(root: string): RecordedResults {
  const path = join(root, RESULTS_FILE);
  if (!existsSync(path)) return { rows: {} };
  const parsed = recordedResults.safeParse(JSON.parse(readFileSync(path, 'utf8')));
  if (!parsed.success) throw new Error(`${RESULTS_FILE} is not a results file the report wrote: ${parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`).join('; ')}`);
  return parsed.data;
}

/** The results with rows in table order, so the file changes only where a figure did. */
function writeResults(root: string, results: RecordedResults): void {
  const rows: RecordedResults['rows'] = {};
  for (const { id } of reportRows()) if (results.rows[id]) rows[id] = results.rows[id];
  writeFileSync(join(root, RESULTS_FILE), `${JSON.stringify({ rows }, null, 2)}\n`);
}

/** HEAD's short hash, with `+` when tracked files other than the report's own differ from it. */
function currentCommit(root: string): string {
  const git = (...args: string[]): string => spawnSync('git', args, { cwd: root, encoding: 'utf8' }).stdout.trim();
  const hash = git('rev-parse', '--short', 'HEAD');
  if (!hash) throw new Error(`${root} is not a git checkout: the table says which commit each figure is from`);
  const changed = git('status', '--porcelain', '--untracked-files=no')
    .split('\n')
    .filter((line) => line && !line.endsWith(PAGE) && !line.endsWith(RESULTS_FILE));
  return changed.length ? `${hash}+` : hash;
}

/** Why a job cannot run here, or undefined when it can. */
function unmet(root: string, needs: readonly Need[]): string | undefined {
  for (const need of needs) {
    if (need === 'outcomes' && !existsSync(join(root, OUTCOMES))) return `needs the recorded outcomes at ${OUTCOMES}, which are not part of the repository`;
    if (need === 'prompts' && !existsSync(join(root, PROMPTS))) return `needs the prompts' text at ${PROMPTS} (node scripts/prompts.mjs)`;
    if (need === 'postgres' && !hasPostgres()) return 'needs a PostgreSQL server under /usr/lib/postgresql (apt-get install postgresql)';
  }
  return undefined;
}

function hasPostgres(): boolean {
  const base = '/usr/lib/postgresql';
  return existsSync(base) && readdirSync(base).some((version) => existsSync(join(base, version, 'bin/pg_ctl')));
}

/** Runs `command` in bash from the root, its stderr passed through; resolves with stdout, exit status and the load seen. */
function runCommand(root: string, command: string): Promise<{ stdout: string; status: number; load: string }> {
  return new Promise((done) => {
    const loads = [loadavg()[0] ?? 0];
    const sampler = setInterval(() => loads.push(loadavg()[0] ?? 0), LOAD_SAMPLE_MS);
    const child = spawn('bash', ['-c', command], { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] });
    let stdout = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.on('close', (code, signal) => {
      clearInterval(sampler);
      loads.push(loadavg()[0] ?? 0);
      const low = Math.min(...loads).toFixed(1);
      const high = Math.max(...loads).toFixed(1);
      done({ stdout, status: code ?? (signal ? 128 : 1), load: low === high ? low : `${low}–${high}` });
    });
  });
}

function fileReader(root: string): Pick<JobOutput, 'file' | 'size'> {
  return {
    file: (path) => (existsSync(join(root, path)) ? readFileSync(join(root, path), 'utf8') : undefined),
    size: (path) => (existsSync(join(root, path)) ? statSync(join(root, path)).size : undefined),
  };
}

async function main(): Promise<number> {
  let plan: Plan;
  try {
    plan = readPlan(process.argv.slice(2));
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    process.stderr.write(`bench:report: ${error.message}\n${USAGE}\n`);
    return 2;
  }
  const root = repositoryRoot();
  const results = readResults(root);
  const commit = plan.run.length ? currentCommit(root) : '';
  if (commit.endsWith('+')) process.stderr.write(`bench:report: the work tree has uncommitted changes, so its figures are marked ${commit}\n`);
  const date = new Date().toISOString().slice(0, 10);
  const reran: string[] = [];
  const notProduced: string[] = [];
  let failed = false;
  for (const job of plan.run) {
    const why = unmet(root, job.needs);
    if (why) {
      for (const row of job.rows) notProduced.push(`${row.id}: ${why}`);
      continue;
    }
    const fromFiles = plan.hostResults && job.id === 'host';
    process.stderr.write(`bench:report: ${fromFiles ? `reading the test host's results in test-results/ for ${job.id}` : `running ${job.command}`}\n`);
    const started = performance.now();
    const ran = fromFiles ? { stdout: '', status: 0, load: '' } : await runCommand(root, job.command + (job.machineSuffix ?? ''));
    if (!fromFiles) process.stderr.write(`bench:report: ${job.id} took ${Math.round((performance.now() - started) / 1000)} s (exit ${ran.status}, load ${ran.load})\n`);
    const { figures, missing } = job.read({ stdout: ran.stdout, ...fileReader(root) });
    for (const row of job.rows) {
      const rowUnmet = unmet(root, row.needs ?? []);
      if (rowUnmet) {
        notProduced.push(`${row.id}: ${rowUnmet}`);
        continue;
      }
      const figure = figures[row.id];
      if (figure !== undefined && ran.status === 0) {
        results.rows[row.id] = { figure, commit, date, ...(job.timed && ran.load ? { load: ran.load } : {}) };
        reran.push(row.id);
      } else {
        failed = true;
        notProduced.push(`${row.id}: ${ran.status !== 0 ? `\`${job.command}\` exited ${ran.status}` : (missing[row.id] ?? 'no figure')}`);
      }
    }
  }
  if (plan.run.length) writeResults(root, results);
  const page = join(root, PAGE);
  writeFileSync(page, placeTable(readFileSync(page, 'utf8'), renderTable(results)));

  const notRerun = reportRows()
    .filter((row) => !reran.includes(row.id) && !notProduced.some((line) => line.startsWith(`${row.id}:`)))
    .map((row) => (results.rows[row.id] ? `${row.id} (${results.rows[row.id]?.commit}, ${results.rows[row.id]?.date})` : `${row.id} (never measured)`));
  const say = (title: string, lines: string[]): void => void process.stdout.write(`${title}: ${lines.length ? `\n  ${lines.join('\n  ')}` : 'none'}\n`);
  process.stdout.write(`bench:report: wrote the table of ${PAGE} from ${RESULTS_FILE}\n`);
  say('re-ran', reran);
  say(`read from ${RESULTS_FILE}, not re-run`, notRerun);
  say('could not produce (the recorded figure, if any, is kept)', notProduced);
  return failed ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`bench:report: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  },
);

