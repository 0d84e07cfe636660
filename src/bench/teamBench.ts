/**
 * The team ledger's benchmark, against a real PostgreSQL: a ranking from its local snapshot beside the
 * same ranking from memory, a flush (send a batch, read what is new on the server back), and opening.
 *
 * @remarks
 * Run by `node scripts/team-bench.mjs`, which starts a throwaway server and passes its URL. The point
 * it checks: ranking never waits on the network, so a ranking over the team ledger costs what a ranking
 * over memory does, whatever the server holds; the network and the fold are paid in the background.
 */
import { performance } from 'node:perf_hooks';
import { systemClock } from '../core/clock';
import { MemoryDecisionSink } from '../core/decisions/decision';
import type { Ledger } from '../core/ledger/ledger';
import { MemoryLedger } from '../core/ledger/memoryLedger';
import { TeamLedger } from '../core/ledger/teamLedger';
import { parsePanel } from '../core/panel';
import { seededRandom } from '../core/random';
import type { Observation } from '../core/ratings';
import { Router } from '../core/routing/router';
import { round, summarise, type BenchRow } from './benchRow';

/**
 * Observations already on the server when measuring.
 *
 * @remarks
 * 100,000 shows what the incremental refresh is for: a flush reads only the rows it has not folded, so
 * its cost should not grow with the team's history; opening still reads everything once.
 */
const TEAM_SIZES = [1_000, 10_000, 100_000];
const RANK_RUNS = 4_000;
const FLUSH_RUNS = 30;
const OPEN_RUNS = 10;
/** Observations per flushed batch: about one busy second of routing, as in the workspace ledger's bench. */
const BATCH_SIZE = 20;

const PANEL = parsePanel(
  {
    models: [
      { slug: 'qwen2.5:3b', provider: 'ollama', role: 'base', maxConcurrent: 1 },
      { slug: 'qwen3:14b', provider: 'ollama', role: 'mid', tools: true },
      { slug: 'openai/gpt-4o-mini', provider: 'openrouter', role: 'top', price: { input: 0.15, output: 0.6 }, tools: true },
    ],
  },
  'bench panel',
);

function observations(count: number, seed: number): Observation[] {
  const random = seededRandom(seed);
  return Array.from({ length: count }, (_, i) => ({ model: PANEL.models[i % 3]?.slug ?? 'qwen2.5:3b', classKey: 'plan', success: random() < 0.7, at: i }));
}

function micro(samples: number[]): { medianMs: number; p99Ms: number } {
  const { medianMs, p99Ms } = summarise(samples.map((ms) => ms * 1000));
  return { medianMs: round(medianMs, 1), p99Ms: round(p99Ms, 1) };
}

function rankSamples(ledger: Ledger): number[] {
  const router = new Router({ panel: PANEL, ledger, clock: systemClock, sink: new MemoryDecisionSink(), random: seededRandom(1) });
  const samples: number[] = [];
  for (let i = 0; i < RANK_RUNS; i++) {
    const started = performance.now();
    router.rank({ callId: `b${i}`, classKey: 'plan', verifiable: true });
    samples.push(performance.now() - started);
  }
  // The first tenth warms the JIT and is not reported.
  return samples.slice(RANK_RUNS / 10);
}

export async function runTeamBench(databaseUrl: (size: number) => Promise<string>): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];
  for (const size of TEAM_SIZES) {
    const url = await databaseUrl(size);
    const seeding = await TeamLedger.open({ url, memberId: 'seed', clock: systemClock, syncIntervalMs: 0 });
    seeding.observe(observations(size, size));
    await seeding.close();

    const memory = new MemoryLedger();
    memory.observe(observations(size, size));
    rows.push({ name: 'one ranking, memory ledger (µs)', n: size, ...micro(rankSamples(memory)) });

    const team = await TeamLedger.open({ url, memberId: 'bench', clock: systemClock, syncIntervalMs: 0 });
    rows.push({ name: 'one ranking, team ledger snapshot (µs)', n: size, ...micro(rankSamples(team)) });

    const flushes: number[] = [];
    for (let i = 0; i < FLUSH_RUNS; i++) {
      team.observe(observations(BATCH_SIZE, i));
      const started = performance.now();
      await team.flush();
      flushes.push(performance.now() - started);
    }
    rows.push({ name: `flush: send ${BATCH_SIZE} observations and read what is new (ms)`, n: size, ...summarise(flushes) });
    await team.close();

    const opens: number[] = [];
    for (let i = 0; i < OPEN_RUNS; i++) {
      const started = performance.now();
      const opened = await TeamLedger.open({ url, memberId: 'bench', clock: systemClock, syncIntervalMs: 0 });
      opens.push(performance.now() - started);
      await opened.close();
    }
    rows.push({ name: 'open: connect, check the schema, read the team (ms)', n: size, ...summarise(opens) });
  }
  return rows;
}
