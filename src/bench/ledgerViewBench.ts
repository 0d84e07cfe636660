/**
 * The ledger view's host-side costs on a workspace with 100k decisions: the snapshot that answers the
 * webview's `ready`, a filtered page, a deep page, the ratings-and-spend refresh after a new decision,
 * and the size of the first message.
 *
 * @remarks
 * These run on the extension host's thread (`Session.snapshot` is synchronous), so they are what the
 * rest of the editor waits for while the view opens. Each is timed through the view's own controller
 * and a real `RungSession` over a seeded log, so the figure includes parsing the webview's message,
 * reading the log backwards and building the reply. "Cold" is the first of its kind after the session
 * opened (the session counts a filter's rows once, then keeps the count up to date).
 */
import { appendFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import type { Clock } from '../core/clock';
import { decisionLogPath } from '../core/ledger/decisionLog';
import { parsePanel } from '../core/panel';
import { RungSession } from '../core/session/session';
// The controller is the ledger view's vscode-free half (its rules, tested and timed without an editor);
// eslint.config.mjs lets this file, and only this one, reach into the extension layer for it.
import { LedgerController, type LedgerActions, type LedgerLog } from '../extension/ledgerView/ledgerController';
import type { HostMessage } from '../protocol/ledgerProtocol';
import { round, summarise, type BenchRow } from './benchRow';
import { SEED_MODELS, seedDecisionRows, writeDecisionLog } from './decisionSeed';

/** The log size the ledger view must stay quick at: the decision log's retention limit. */
export const LEDGER_VIEW_DECISIONS = 100_000;
const WARM_RUNS = 10;
/** The page the view asks for when it opens. */
const FIRST_PAGE_ROWS = 50;

class NoActions implements LedgerActions {
  async pin(): Promise<void> {}
  async avoid(): Promise<void> {}
  async exportLedger(): Promise<void> {}
  async confirmResetClass(): Promise<boolean> {
    return false;
  }
}

class SilentLog implements LedgerLog {
  info(): void {}
  warn(message: string): void {
    process.stderr.write(`panel bench: ${message}\n`);
  }
  error(message: string): void {
    process.stderr.write(`panel bench: ${message}\n`);
  }
}

export async function runLedgerViewBench(count = LEDGER_VIEW_DECISIONS): Promise<BenchRow[]> {
  const dir = mkdtempSync(join(tmpdir(), 'rung-panel-bench-'));
  const now = Date.UTC(2026, 11, 1, 12);
  const clock: Clock = { now: () => now };
  try {
    const ledgerPath = join(dir, '.rung', 'ledger.sqlite');
    const seeded = seedDecisionRows(count, now);
    writeDecisionLog(decisionLogPath(ledgerPath), seeded);
    const panel = parsePanel(
      {
        models: SEED_MODELS.map((model) => (model.price ? { slug: model.slug, provider: model.provider, price: model.price } : { slug: model.slug, provider: model.provider })),
        // Providers on a closed local port: the bench measures the ledger view, not a probe. The keyed
        // OpenRouter stand-in stays a cloud provider, as the seeded rows say, though it is on loopback.
        providers: { ollama: { kind: 'ollama', baseUrl: 'http://127.0.0.1:9' }, openrouter: { kind: 'openai-compatible', baseUrl: 'http://127.0.0.1:9', key: 'required' } },
      },
      'panel bench',
    );
    const session = await RungSession.open({ panel, store: { kind: 'file', path: ledgerPath }, clock, keys: async () => undefined });
    const posted: HostMessage[] = [];
    const controller = new LedgerController({ session, post: (message) => posted.push(message), actions: new NoActions(), log: new SilentLog(), defer: () => () => undefined });
    /** Wall time and this process's CPU time for one message, ms: on a shared machine the two differ. */
    const timeOne = async (message: unknown): Promise<{ wall: number; cpu: number }> => {
      const cpu = process.cpuUsage();
      const started = performance.now();
      await controller.receive(message);
      const used = process.cpuUsage(cpu);
      return { wall: performance.now() - started, cpu: (used.user + used.system) / 1000 };
    };
    const rows: BenchRow[] = [];
    const measure = async (name: string, message: unknown): Promise<void> => {
      const cold = await timeOne(message);
      const warm: { wall: number; cpu: number }[] = [];
      for (let run = 0; run < WARM_RUNS; run++) warm.push(await timeOne(message));
      const reply = posted[posted.length - 1];
      const cpu = summarise(warm.map((sample) => sample.cpu));
      rows.push({ name, n: count, ...summarise(warm.map((sample) => sample.wall)), extra: { cpuMedianMs: round(cpu.medianMs, 1), coldMs: round(cold.wall), replyBytes: Buffer.byteLength(JSON.stringify(reply)) } });
    };
    await measure(`panel ready -> snapshot of the newest ${FIRST_PAGE_ROWS} rows (ms)`, { type: 'ready', filter: {}, offset: 0, limit: FIRST_PAGE_ROWS });
    await measure('panel page filtered by verdict fail (ms)', { type: 'page', filter: { verdict: 'fail' }, offset: 0, limit: FIRST_PAGE_ROWS });
    await measure('panel page filtered by class and model (ms)', { type: 'page', filter: { classKey: 'edit', model: 'openai/gpt-4o-mini' }, offset: 0, limit: FIRST_PAGE_ROWS });
    await measure(`panel page at offset ${count / 2} (ms)`, { type: 'page', filter: {}, offset: count / 2, limit: FIRST_PAGE_ROWS });
    // The refresh after a new decision: ratings and spend without a page.
    const refresh: number[] = [];
    const refreshCpu: number[] = [];
    for (let run = 0; run < WARM_RUNS; run++) {
      const cpu = process.cpuUsage();
      const started = performance.now();
      session.snapshot({ offset: 0, limit: 0 });
      refresh.push(performance.now() - started);
      const used = process.cpuUsage(cpu);
      refreshCpu.push((used.user + used.system) / 1000);
    }
    rows.push({ name: 'panel refresh of ratings and spend, 30-day window (ms)', n: count, ...summarise(refresh), extra: { cpuMedianMs: round(summarise(refreshCpu).medianMs, 1) } });
    // Where a thumbs down for a call about 1,000 rows back goes on the page: asked for every row written.
    const target = seeded[Math.max(0, seeded.length - 1_000)];
    if (target) {
      const verdict = { ...target, at: now, verdict: 'fail' as const, verdictReason: 'thumbs down', final: true, pruned: [], candidates: [], escalation: [] };
      appendFileSync(decisionLogPath(ledgerPath), `${JSON.stringify(verdict)}\n`);
      for (const filter of [{}, { verdict: 'fail' as const }]) {
        const times: number[] = [];
        let place = session.placeOf(verdict, filter);
        for (let run = 0; run < WARM_RUNS; run++) {
          const started = performance.now();
          place = session.placeOf(verdict, filter);
          times.push(performance.now() - started);
        }
        rows.push({ name: `panel place of a verdict 1,000 rows back${filter.verdict ? ', filtered by verdict fail' : ''} (ms)`, n: count, ...summarise(times), extra: { offset: place.offset ?? -1, added: place.added } });
      }
    }
    controller.dispose();
    await session.dispose();
    return rows;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
