/**
 * What reading a panel file full of small mistakes costs on the thread that reads it: the issues found,
 * each placed at its line and column, as every session open and every change to the file does.
 *
 * @remarks
 * The panel file is read in Restricted Mode too (its models are used there), so a cloned folder decides
 * what is in it. Each issue's place was once found by reading the text up to it again, and a file of
 * `{"models":[1,1,…]}` just under 1 MiB took 146 s; a list of more models than a panel takes is now one
 * issue, read no further. A model with an unknown key on every line has one issue a line, all under the
 * model list's limit. The sizes below show whether the time now grows with the text, not its square. Run alone with `RUNG_BENCH_ONLY=panel-file npm run bench`.
 */
import { performance } from 'node:perf_hooks';
import { PANEL_FILE_MAX_BYTES } from '../core/panelFileText';
import { PanelError, parsePanelText } from '../core/panel';
import { summarise, type BenchRow } from './benchRow';

const RUNS = 3;
const KB = 1024;

/** `{"models":[1,1,…]}` of about `bytes` characters: one issue a model. */
function ones(bytes: number): string {
  return `{"models":[${Array.from({ length: Math.floor((bytes - 13) / 2) }, () => '1').join(',')}]}`;
}

/** One model of about `bytes`, with a key of its own on each line: one issue a line, each to be placed. */
function unknownKeys(bytes: number): string {
  const lines: string[] = [];
  for (let size = 48, index = 0; size < bytes; index++) {
    const next = `"extra${index}": 1`;
    lines.push(next);
    size += next.length + 2;
  }
  return `{"models":[{"slug":"m","provider":"ollama",\n${lines.join(',\n')}\n}]}`;
}

export async function runPanelFileBench(): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];
  // Just under the largest panel file Rung reads (1 MiB), where the attack was measured.
  const largest = PANEL_FILE_MAX_BYTES - 16;
  for (const [name, make] of [
    ['{"models":[1,1,…]}', ones],
    ['one model with an unknown key on every line', unknownKeys],
  ] as const) {
    for (const bytes of [128 * KB, 256 * KB, 512 * KB, largest]) {
      const text = make(bytes);
      let issues = 0;
      const samples: number[] = [];
      for (let run = 0; run < RUNS; run++) {
        const started = performance.now();
        try {
          parsePanelText(text, 'bench');
        } catch (error) {
          if (!(error instanceof PanelError)) throw error;
          issues = error.issues.length;
        }
        samples.push(performance.now() - started);
      }
      rows.push({ name: `panel file of ${name}, its issues placed (ms)`, n: text.length, ...summarise(samples), extra: { linesSaid: issues } });
    }
  }
  return rows;
}
