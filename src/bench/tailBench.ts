/**
 * What reading a decision log backwards costs when one line in it is huge: a corrupt log, or a row
 * holding a pasted file. Every newest-first read (the panel's page, the spend window, Explain Last
 * Decision) goes through `visitLinesBackwards`, and every catch-up on rows appended since (the spend
 * tally, the row count) through `visitLinesForward`; both read 64 KiB at a time.
 *
 * @remarks
 * Run alone with
 * `npx esbuild src/bench/tailBench.ts --bundle --platform=node --outfile=dist/tail-bench.js --log-level=warning && node dist/tail-bench.js`.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { visitLinesBackwards, visitLinesForward } from '../core/ledger/decisionTail';

const SIZES_MB = [8, 32, 128];
const SAMPLES = 3;

function main(): void {
  const dir = mkdtempSync(join(tmpdir(), 'rung-tail-bench-'));
  try {
    const path = join(dir, 'decisions.jsonl');
    process.stdout.write('| one line of | backwards, median ms (of 3) | forwards, median ms (of 3) |\n| ---: | ---: | ---: |\n');
    for (const mb of SIZES_MB) {
      writeFileSync(path, `{"a":1}\n{"big":"${'x'.repeat(mb * 1024 * 1024)}"}\n{"b":2}\n`);
      const backwards = median(() => visitLinesBackwards(path, () => true));
      const forwards = median(() => visitLinesForward(path, 0, () => undefined));
      process.stdout.write(`| ${mb} MB | ${backwards} | ${forwards} |\n`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The median of {@link SAMPLES} timings of `read`, ms. */
function median(read: () => void): number {
  const times: number[] = [];
  for (let sample = 0; sample < SAMPLES; sample++) {
    const started = performance.now();
    read();
    times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  return Math.round(times[Math.floor(SAMPLES / 2)] ?? 0);
}

main();
