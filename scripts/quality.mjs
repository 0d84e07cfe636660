// `node scripts/quality.mjs [OUTCOMES.jsonl] [--economy] [--noisy] [--worlds | --recorded] [--world NAME]… [--spend]`: the routing-quality figures of BENCHMARKS.md in
// one command — the recorded data's train and test splits, families left out, and the generated worlds,
// each beside the simple online learner. Builds src/bench/quality.ts first; writes worlds to a temp dir.
import { runBench } from './benchRunner.mjs';

await runBench('quality', 'quality');
