// `node scripts/confidence-tuning.mjs [OUTCOMES.jsonl] [--split train] [--seeds A-B] [--explore K]`: the learned
// confidence check's curve on one split and its accuracy at 40% and 55% of the best model's cost, for choosing
// its tunables on `train`. Builds src/bench/confidenceTuning.ts first.
import { runBench } from './benchRunner.mjs';

await runBench('confidenceTuning', 'confidenceTuning');
