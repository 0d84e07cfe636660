// `node scripts/what-if.mjs [--source NAME|FILE]… [--calls 1000,3000,10000,30000] [--seeds K]`: the What if's
// estimates against the truth, by logged-call count and method (BENCHMARKS.md). Builds src/bench/whatIfBench.ts first.
import { runBench } from './benchRunner.mjs';

await runBench('whatIfBench', 'what-if-bench');
