/**
 * What reading a hostile model answer costs on the thread that reads it: fenced blocks found in an
 * answer made of fence lines or of thousands of code blocks, and tool calls assembled from a stream of
 * 100k deltas.
 *
 * @remarks
 * Every check that reads fences (the structured-output check, the code syntax check, the files a
 * command check writes, the extension's edit reader) runs on the extension host's thread, and so does
 * every adapter, so a model — or a server pretending to be one — that sends an answer shaped to make
 * that work quadratic freezes the editor. The answers are built in memory and the streams come through
 * the adapters' `fetch` seam from memory, so the figures are CPU alone, with no socket in them.
 * Run alone with `RUNG_BENCH_ONLY=answers npm run bench`.
 */
import { performance } from 'node:perf_hooks';
import type { Clock } from '../core/clock';
import { OllamaAdapter } from '../core/providers/ollamaAdapter';
import { OpenAiCompatibleAdapter } from '../core/providers/openAiCompatibleAdapter';
import type { ProviderAdapter, ToolSpec } from '../core/providers/provider';
import { answerFiles } from '../core/verifiers/answerFiles';
import { CodeSyntaxVerifier } from '../core/verifiers/codeSyntaxVerifier';
import { fencedBlocks, StructuredOutputVerifier } from '../core/verifiers/structuredOutputVerifier';
import type { Verifier } from '../core/verifiers/verifier';
import { summarise, type BenchRow } from './benchRow';

const RUNS = 3;
const KB = 1024;
/** The sizes the figures in BENCHMARKS.md were first measured at: 128 KB of fence lines, 480 KB of code blocks, 100k deltas. */
const FENCE_LINES_BYTES = 128 * KB;
const CODE_BLOCKS_BYTES = 480 * KB;
const TOOL_DELTAS = 100_000;

const clock: Clock = { now: () => 0 };

export async function runAnswerBench(): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];
  const answers: [string, string][] = [
    ['128 KB of "```" lines', repeatTo('```\n', FENCE_LINES_BYTES)],
    ['128 KB of "```ts" lines, none closed', repeatTo('```ts\n', FENCE_LINES_BYTES)],
    ['480 KB of code blocks', repeatTo('Step:\n```ts title="src/a.ts"\nexport const a: number = 1;\n```\n', CODE_BLOCKS_BYTES)],
  ];
  for (const [name, text] of answers) {
    rows.push(await timed(`fenced blocks in ${name} (ms)`, text.length, () => fencedBlocks(text).length));
    rows.push(await timed(`structured-output check of ${name} (ms)`, text.length, () => check(new StructuredOutputVerifier({ schema: { type: 'object' } }), text)));
    rows.push(await timed(`code syntax check of ${name} (ms)`, text.length, () => check(new CodeSyntaxVerifier(), text)));
    rows.push(await timed(`files named in ${name} (ms)`, text.length, () => answerFiles(text).length));
  }
  rows.push(await timed(`OpenAI-compatible stream of ${TOOL_DELTAS} tool-call deltas, each opening a call (ms)`, TOOL_DELTAS, () => toolCalls(openAiAdapter(openAiToolDeltas(TOOL_DELTAS)), TOOL_DELTAS)));
  rows.push(await timed(`Ollama stream of ${TOOL_DELTAS} tool calls, one a chunk (ms)`, TOOL_DELTAS, () => toolCalls(ollamaAdapter(ollamaToolChunks(TOOL_DELTAS)), TOOL_DELTAS)));
  return rows;
}

/** The sizes of the scaling run: each twice the last, up to 1 MiB. */
const SCALING_BYTES = [256 * KB, 512 * KB, 1024 * KB];
/** Each scaling figure: warmed once, then the median of 5. */
const SCALING = { warm: true, runs: 5 };

/**
 * The same scans on hostile answers of 256 KB, 512 KB and 1 MiB, and tool-call streams of those sizes:
 * linear when each doubling of the answer about doubles the time, where a quadratic scan would take four
 * times as long. Run alone with `RUNG_BENCH_ONLY=answer-scaling npm run bench`.
 */
export async function runAnswerScalingBench(): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];
  const units: [string, string][] = [
    ['"```" lines', '```\n'],
    ['"```ts" lines, none closed', '```ts\n'],
    ['code blocks', 'Step:\n```ts title="src/a.ts"\nexport const a: number = 1;\n```\n'],
  ];
  for (const [name, unit] of units) {
    for (const bytes of SCALING_BYTES) {
      const text = repeatTo(unit, bytes);
      const size = `${bytes / KB} KB of ${name}`;
      rows.push(await timed(`fenced blocks in ${size} (ms)`, text.length, () => fencedBlocks(text).length, SCALING));
      rows.push(await timed(`structured-output check of ${size} (ms)`, text.length, () => check(new StructuredOutputVerifier({ schema: { type: 'object' } }), text), SCALING));
      rows.push(await timed(`code syntax check of ${size} (ms)`, text.length, () => check(new CodeSyntaxVerifier(), text), SCALING));
      rows.push(await timed(`files named in ${size} (ms)`, text.length, () => answerFiles(text).length, SCALING));
    }
  }
  for (const bytes of SCALING_BYTES) {
    const openAi = deltasIn(bytes, openAiToolDeltas);
    rows.push(await timed(`OpenAI-compatible stream of ${bytes / KB} KB of tool-call deltas (${openAi.count} calls) (ms)`, openAi.body.length, () => toolCalls(openAiAdapter(openAi.body), openAi.count), SCALING));
    const ollama = deltasIn(bytes, ollamaToolChunks);
    rows.push(await timed(`Ollama stream of ${bytes / KB} KB of tool calls (${ollama.count} calls) (ms)`, ollama.body.length, () => toolCalls(ollamaAdapter(ollama.body), ollama.count), SCALING));
  }
  return rows;
}

/** A stream `make` builds of as many calls as fit in `bytes`. */
function deltasIn(bytes: number, make: (count: number) => string): { body: string; count: number } {
  const perCall = make(2).length - make(1).length;
  const count = Math.max(1, Math.floor(bytes / perCall));
  return { body: make(count), count };
}

/** `unit` repeated to about `bytes` characters. */
function repeatTo(unit: string, bytes: number): string {
  return unit.repeat(Math.ceil(bytes / unit.length));
}

async function timed(name: string, n: number, work: () => unknown, options: { warm?: boolean; runs?: number } = {}): Promise<BenchRow> {
  const samples: number[] = [];
  // Once untimed first, when sizes are compared: the first run of a scan pays for compiling it.
  if (options.warm) await work();
  for (let run = 0; run < (options.runs ?? RUNS); run++) {
    const started = performance.now();
    await work();
    samples.push(performance.now() - started);
  }
  return { name, n, ...summarise(samples) };
}

async function check(verifier: Verifier, text: string): Promise<string> {
  return (await verifier.verify({ text, toolCalls: [], model: 'bench' })).verdict;
}

const TOOLS: ToolSpec[] = [{ name: 'read_file', parameters: { type: 'object' } }];

/** Counts the tool calls an adapter's stream yields; throws when the stream failed or assembled another number than `expected`. */
async function toolCalls(adapter: ProviderAdapter, expected: number): Promise<number> {
  let calls = 0;
  for await (const part of adapter.chat('bench', [{ role: 'user', content: 'go' }], TOOLS, {})) {
    if (part.type === 'tool-call') calls++;
  }
  if (calls !== expected) throw new Error(`answer bench: ${calls} tool calls of ${expected}`);
  return calls;
}

/** A body served from memory, as a fetch would return it. */
function fetchOf(body: string, contentType: string): () => Promise<Response> {
  return async () => new Response(body, { headers: { 'content-type': contentType } });
}

function openAiToolDeltas(count: number): string {
  const lines: string[] = [];
  for (let index = 0; index < count; index++) {
    lines.push(`data: {"choices":[{"index":0,"delta":{"tool_calls":[{"index":${index},"id":"call_${index}","function":{"name":"read_file","arguments":"{}"}}]}}]}\n\n`);
  }
  lines.push('data: {"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}\n\n', 'data: [DONE]\n\n');
  return lines.join('');
}

function openAiAdapter(body: string): ProviderAdapter {
  return new OpenAiCompatibleAdapter({ name: 'bench', baseUrl: 'http://127.0.0.1:9/v1', clock, requireKey: false, fetch: fetchOf(body, 'text/event-stream') });
}

function ollamaToolChunks(count: number): string {
  const lines: string[] = [];
  for (let index = 0; index < count; index++) {
    lines.push(`{"model":"bench","message":{"role":"assistant","content":"","tool_calls":[{"function":{"name":"read_file","arguments":{}}}]},"done":false}\n`);
  }
  lines.push('{"model":"bench","message":{"role":"assistant","content":""},"done":true,"done_reason":"stop"}\n');
  return lines.join('');
}

function ollamaAdapter(body: string): ProviderAdapter {
  const chat = fetchOf(body, 'application/x-ndjson');
  // The finish asks the probe for the model's digest: an empty model list answers it.
  const fetch = async (input: string): Promise<Response> => (input.endsWith('/api/tags') ? new Response('{"models":[]}') : chat());
  return new OllamaAdapter({ baseUrl: 'http://127.0.0.1:9', clock, fetch });
}
