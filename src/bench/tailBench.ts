/**
 * What reading a decision log backwards costs when one line in it is huge: a corrupt log, or a row
 * holding a pasted file. Every newest-first read (the panel's page, the spend window, Explain Last
 * Decision) goes through `visitLinesBackwards`, which reads 64 KiB at a time.
 *
 * @remarks
 * Run alone with
 * `npx esbuild src/bench/tailBench.ts --bundle --platform=node --outfile=dist/tail-bench.js --log-level=warning && node dist/tail-bench.js`.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { visitLinesBackwards } from '../core/ledger/decisionTail';

const SIZES_MB = [8, 32, 128];
const SAMPLES = 3;

function main(): void {
  const dir = mkdtempSync(join(tmpdir(), 'rung-tail-bench-'));
  try {
    const path = join(dir, 'decisions.jsonl');
    process.stdout.write('| one line of | lines read | median ms (of 3) |\n| ---: | ---: | ---: |\n');
    for (const mb of SIZES_MB) {
      writeFileSync(path, `{"a":1}\n{"big":"${'x'.repeat(mb * 1024 * 1024)}"}\n{"b":2}\n`);
      const times: number[] = [];
      let lines = 0;
      for (let sample = 0; sample < SAMPLES; sample++) {
        lines = 0;
        const started = performance.now();
        visitLinesBackwards(path, () => (lines++, true));
        times.push(performance.now() - started);
      }
      times.sort((a, b) => a - b);
      process.stdout.write(`| ${mb} MB | ${lines} | ${Math.round(times[1] ?? 0)} |\n`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

main();
