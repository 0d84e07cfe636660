/**
 * How long reading a request's checks (`inferChecks`) and the JSON check of an answer take, on what a
 * user may paste: a typed question, a 100 KB file with the request after it, and text built to make a
 * careless pattern slow.
 *
 * @remarks
 * Both run on the extension host's thread for every call, before the first rung is asked and after
 * each answer. A pattern that searches the rest of the text again from every position takes time that
 * grows with the square of the text; BENCHMARKS.md has these figures before and after each such
 * pattern was rewritten.
 */
import { performance } from 'node:perf_hooks';
import { inferChecks } from '../core/session/inferredChecks';
import type { ChatMessage, ToolSpec } from '../core/providers/provider';
import { JsonAnswerVerifier } from '../core/verifiers/jsonAnswerVerifier';
import { summarise, type BenchRow } from './benchRow';

const RUNS = 20;
const TOOLS: ToolSpec[] = [{ name: 'replace_string_in_file', parameters: { type: 'object' } }];
const TYPESCRIPT_LINE = 'const a: Array<string> = new Map<string, number>(); function f<T>(x: T): Promise<T> { return x; }\n';

/** Requests to read, by name: each a user's turn. */
function requests(): [string, string][] {
  const file = TYPESCRIPT_LINE.repeat(1_000);
  return [
    ['a typed request', 'Return the three largest cities in Japan as a JSON array, and fix the typo in src/cities.ts.'],
    ['a 100 KB TypeScript file pasted, the request after it', `${file}\nAdd error handling to this.`],
    ['the same file in a fence', `\`\`\`ts\n${file}\`\`\`\nAdd error handling to this.`],
    ['200 KB of a.a.a…', 'a.'.repeat(100_000)],
    ['190 KB of unclosed <attachment> tags', '<attachment id=1>x '.repeat(10_000)],
    ['110 KB of unclosed HTML tags', '<div><span>'.repeat(10_000)],
    // What an attached file can hold: each unclosed tag sent a pattern looking for its end to the end of the text.
    ['1 MB of unclosed <userRequest> tags', '<userRequest>x '.repeat(Math.ceil(1_000_000 / 15)).slice(0, 1_000_000)],
    ['1 MB of unclosed <file tags', '<file x '.repeat(125_000)],
  ];
}

/** Answers to check for JSON, by name. */
function answers(): [string, string][] {
  return [
    ['a 1 MB JSON answer', JSON.stringify(Array.from({ length: 20_000 }, (_, index) => ({ id: index, name: `item ${index}`, tags: ['a', 'b'] })))],
    ['20,000 lines that open a brace and never close one', '{\n'.repeat(20_000)],
  ];
}

export async function runChecksBench(): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];
  for (const [name, content] of requests()) {
    const messages: ChatMessage[] = [{ role: 'user', content }];
    const samples: number[] = [];
    for (let run = 0; run < RUNS; run++) {
      const started = performance.now();
      inferChecks({ messages, tools: TOOLS });
      samples.push(performance.now() - started);
    }
    rows.push({ name: `checks read from ${name} (ms)`, n: content.length, ...summarise(samples) });
  }
  const verifier = new JsonAnswerVerifier();
  for (const [name, text] of answers()) {
    const samples: number[] = [];
    for (let run = 0; run < RUNS; run++) {
      const started = performance.now();
      await verifier.verify({ text, toolCalls: [], model: 'bench' });
      samples.push(performance.now() - started);
    }
    rows.push({ name: `JSON check of ${name} (ms)`, n: text.length, ...summarise(samples) });
  }
  return rows;
}
