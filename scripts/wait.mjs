// `node scripts/wait.mjs [OUTCOMES.jsonl] [--worlds] [--bound | --bound-only] [--plot DIR] [--seeds N]`: the user's wait in
// BENCHMARKS.md — Rung at several values of a minute's wait beside the cheapest-first cascade and the best
// single model, on the recorded train and test splits, and on the generated worlds. Builds src/bench/waitBench.ts first.
import { runBench } from './benchRunner.mjs';

await runBench('waitBench', 'wait');
