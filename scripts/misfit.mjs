// `node scripts/misfit.mjs [OUTCOMES.jsonl] [--split S] [--world NAME --seed N]`: the recorded outcomes
// (train split unless told) against the router's one-difficulty model, per family — the figures the
// correlated world in src/bench/worlds.ts was calibrated to. Builds src/bench/misfitReport.ts first.
import { runBench } from './benchRunner.mjs';

await runBench('misfitReport', 'misfit');
