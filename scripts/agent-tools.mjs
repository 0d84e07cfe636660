// `node scripts/agent-tools.mjs [TOOLS.json] [--input-price USD_PER_M]`: the agent tools figures of BENCHMARKS.md —
// what Agent mode's tool schemas take of a request, sent whole and trimmed by `rung.agentTools: "relevant"`.
// Builds src/bench/agentToolsBench.ts first.
import { runBench } from './benchRunner.mjs';

await runBench('agentToolsBench', 'agentToolsBench');
