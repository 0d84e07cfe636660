/**
 * How long the provider transport takes to read one long line that arrives in small pieces: a model
 * answering in one huge JSON line (a big tool call's arguments, a server that never breaks its lines),
 * sent a few bytes at a time by a slow proxy or a busy local server.
 *
 * @remarks
 * The body comes from a stream in memory through the transport's own `fetch` seam, so the figure is
 * the line reader's CPU alone, with no socket in it. Lines of 1 and 3 MiB (under the 4 MiB line limit)
 * in 64- and 1,024-byte pieces: a reader that searches its whole buffer again on every piece shows up
 * as time growing with the square of the line.
 */
import { performance } from 'node:perf_hooks';
import { requestLines } from '../core/providers/transport';
import { summarise, type BenchRow } from './benchRow';

const RUNS = 3;
const MIB = 1024 * 1024;

export async function runStreamBench(): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];
  for (const [lineBytes, pieceBytes] of [
    [MIB, 1_024],
    [MIB, 64],
    [3 * MIB, 1_024],
    [3 * MIB, 64],
  ] as const) {
    const samples: number[] = [];
    for (let run = 0; run < RUNS; run++) samples.push(await readOneLine(lineBytes, pieceBytes));
    rows.push({ name: `one ${lineBytes / MIB} MiB line read in ${pieceBytes}-byte pieces (ms)`, n: lineBytes, ...summarise(samples) });
  }
  return rows;
}

async function readOneLine(lineBytes: number, pieceBytes: number): Promise<number> {
  const line = new TextEncoder().encode(`${'x'.repeat(lineBytes)}\n`);
  let offset = 0;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (offset >= line.length) return controller.close();
      controller.enqueue(line.subarray(offset, offset + pieceBytes));
      offset += pieceBytes;
    },
  });
  const fetch = async (): Promise<Response> => new Response(body, { headers: { 'content-type': 'application/x-ndjson' } });
  const started = performance.now();
  let chars = 0;
  for await (const read of requestLines('http://127.0.0.1:9/api/chat', { method: 'POST' }, { provider: 'bench', fetch, firstByteTimeoutMs: 60_000, now: () => Date.now() })) chars += read.length;
  const elapsed = performance.now() - started;
  if (chars !== lineBytes) throw new Error(`stream bench: read ${chars} characters of ${lineBytes}`);
  return elapsed;
}
