/**
 * What the ledger panel's reads cost on a long decision log: a page of recent decisions, a filtered
 * page, the rows' total, and spend, through `RungSession.snapshot`.
 *
 * @remarks
 * The log holds 100k rows (the retention's ceiling) spread over 90 days, so the 30-day spend window
 * covers about a third of it. The first snapshot counts the whole log once and reads the spend
 * window backwards; later ones read only what was appended. Run alone with
 * `npm run -s build && npx esbuild src/bench/sessionBench.ts --bundle --platform=node --outfile=dist/session-bench.js --log-level=warning && node dist/session-bench.js`
 * (in `dist/`, where the build puts the sql.js WebAssembly the ledger loads).
 */
import { appendFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import type { Clock } from '../core/clock';
import type { DecisionRow } from '../core/decisions/decision';
import { parsePanel } from '../core/panel';
import type { ProviderAdapter, StreamPart } from '../core/providers/provider';
import { RungSession } from '../core/session/session';
import { summarise, type BenchRow } from './benchRow';

/** Rows in the benchmark's log. */
export const SESSION_LOG_ROWS = 100_000;
/** Days the rows are spread over. */
const LOG_DAYS = 90;
/** Samples per measurement. */
const SAMPLES = 20;
const DAY_MS = 24 * 60 * 60 * 1000;
const MODELS = ['qwen2.5:3b', 'qwen3:14b', 'openai/gpt-4o-mini', 'anthropic/claude-haiku'];

export async function runSessionBench(): Promise<BenchRow[]> {
  const dir = mkdtempSync(join(tmpdir(), 'rung-session-bench-'));
  const now = Date.UTC(2026, 3, 1);
  const clock: Clock = { now: () => now };
  try {
    mkdirSync(join(dir, '.rung'));
    const logPath = join(dir, '.rung', 'decisions.jsonl');
    const lines: string[] = [];
    for (let i = 0; i < SESSION_LOG_ROWS; i++) lines.push(JSON.stringify(row(i, now - LOG_DAYS * DAY_MS + Math.floor((i * LOG_DAYS * DAY_MS) / SESSION_LOG_ROWS))));
    writeFileSync(logPath, `${lines.join('\n')}\n`);
    const panel = parsePanel(
      { models: MODELS.map((slug) => ({ slug, provider: 'editor', price: { input: 1, output: 4 } })), providers: { editor: { kind: 'vscode-lm' } } },
      'bench panel',
    );
    const session = await RungSession.open({ panel, clock, keys: async () => undefined, store: { kind: 'file', path: join(dir, '.rung', 'ledger.sqlite') }, providerFactories: { 'vscode-lm': () => new SilentModels() } });
    try {
      const first = time(() => session.snapshot({ limit: 50 }));
      const again = samples(() => session.snapshot({ limit: 50 }));
      const filtered = samples(() => session.snapshot({ limit: 50, filter: { model: 'openai/gpt-4o-mini', verdict: 'fail' } }));
      let appended = SESSION_LOG_ROWS;
      const afterAppend = samples(() => {
        appendFileSync(logPath, `${JSON.stringify(row(appended, now - 1000))}\n`);
        appended++;
        session.snapshot({ limit: 50 });
      });
      return [
        { name: 'session snapshot, first (counts the whole log, ms)', n: SESSION_LOG_ROWS, medianMs: first, p99Ms: first },
        { name: 'session snapshot, 50-row page, log unchanged (ms)', n: SESSION_LOG_ROWS, ...summarise(again) },
        { name: 'session snapshot, filtered 50-row page (ms)', n: SESSION_LOG_ROWS, ...summarise(filtered) },
        { name: 'session snapshot after one appended row (ms)', n: SESSION_LOG_ROWS, ...summarise(afterAppend) },
      ];
    } finally {
      await session.dispose();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function time(run: () => void): number {
  const started = performance.now();
  run();
  return Math.round((performance.now() - started) * 1000) / 1000;
}

function samples(run: () => void): number[] {
  return Array.from({ length: SAMPLES }, () => time(run));
}

function row(i: number, at: number): DecisionRow {
  const model = MODELS[i % MODELS.length] ?? 'qwen3:14b';
  return {
    v: 1, at, call: `call-${i}`, run: `run-${Math.floor(i / 50)}`, class: 'edit', shape: 'typescript',
    candidates: MODELS, rung: i % 4, escalation: MODELS.slice(0, i % 4), model, resolved: model,
    explore: false, propensity: 1, verdict: i % 3 === 0 ? 'fail' : 'pass',
    verdictReason: i % 3 === 0 ? 'tsc: 2 errors in src/app.ts' : null, inputTokens: 1200 + (i % 500), outputTokens: 300 + (i % 200),
    cost: model.includes('/') ? 0.0012 : 0, latencyMs: 900 + (i % 1000), reason: 'measured 12/13 success class=edit/typescript', mode: model.includes('/') ? 'cloud' : 'local',
    pruned: [{ model: 'llama3.3:70b', reason: 'pruned: busy llama3.3:70b 1/1 in flight' }],
    final: false,
  };
}

/** A provider that is never asked: the bench calls no model. */
class SilentModels implements ProviderAdapter {
  readonly name = 'editor';
  async available(): Promise<boolean> {
    return true;
  }
  // eslint-disable-next-line require-yield
  async *chat(): AsyncIterable<StreamPart> {
    throw new Error('the session bench calls no model');
  }
}

if (require.main === module) {
  runSessionBench().then(
    (rows) => {
      for (const entry of rows) process.stdout.write(`${entry.name.padEnd(56)} n=${entry.n}  median ${entry.medianMs}  p99 ${entry.p99Ms}\n`);
    },
    (error: unknown) => {
      process.stderr.write(`session bench: ${String(error)}\n`);
      process.exitCode = 1;
    },
  );
}
