// `node scripts/confidence.mjs [OUTCOMES.jsonl] [--seeds K] [--svg FILE]`: the confidence-check figures of BENCHMARKS.md
// in one command — Rung with the learned check on train and test, one fixed threshold, fixed chains per
// family chosen on train, on half of test and on test itself — and, with --svg, their plot. Builds src/bench/confidenceBench.ts first.
import { runBench } from './benchRunner.mjs';

await runBench('confidenceBench', 'confidenceBench');
