// `node scripts/discovery.mjs [--models N] [--delay-ms MS]`: the panel-discovery figures of BENCHMARKS.md —
// how long a panel built from a local Ollama listing N slow models takes. Builds src/bench/discoveryBench.ts first.
import { runBench } from './benchRunner.mjs';

await runBench('discoveryBench', 'discoveryBench');
