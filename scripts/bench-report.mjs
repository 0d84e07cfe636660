// `npm run bench:report [-- --all | --only JOB… | --render] [--host-results]`: writes BENCHMARKS.md's first
// table, re-running the rows that run in minutes and reading the others from bench/results.json
// (src/bench/benchReport.ts says how). Builds src/bench/benchReport.ts first.
import { runBench } from './benchRunner.mjs';

await runBench('benchReport', 'bench-report');
