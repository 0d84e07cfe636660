/**
 * `node scripts/agent-tools.mjs [TOOLS.json] [--input-price USD_PER_M]`: what Agent mode's tool schemas
 * take of a request, sent whole (`rung.agentTools: "all"`) and trimmed (`"relevant"`), for a few
 * requests of the kinds a morning's work brings; and, over recorded Agent mode sessions
 * (test/fixtures/agent/recorded-agent-sessions.json), how often `"relevant"` would have left out a tool
 * a session went on to call. The figures of BENCHMARKS.md's agent tools section.
 *
 * @remarks
 * The tools are the 39 Agent mode sent with one request in the test host (test/fixtures/agent/), the
 * request is the user's words inside `<userRequest>` as Agent mode sends them, and tokens are Rung's estimate (characters / 4),
 * the one the log, the decision rows and the context check use. The USD column prices the schemas as
 * input at `--input-price` (default 2.5, gpt-4o's list price per million input tokens).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ChatMessage, ToolSpec } from '../core/providers/provider';
import { toolsSent } from '../core/providers/tokens';
import { chooseTools } from '../core/providers/toolChoice';
import { formatUsd } from '../protocol/formatUsd';

const REQUESTS = ['What does toolChoice.ts do?', 'Rename greet to hello across the project', 'Fix the failing tests in src/core', 'Summarise this notebook and fetch the docs page', 'Search GitHub for how other extensions register a model provider'];

const args = process.argv.slice(2);
const priceAt = args.indexOf('--input-price');
const inputPrice = priceAt >= 0 ? Number(args[priceAt + 1]) : 2.5;
const file = args.find((arg, index) => !arg.startsWith('--') && !(priceAt >= 0 && index === priceAt + 1)) ?? join(__dirname, '..', 'test/fixtures/agent/vscode-1.139-agent-mode-tools.json');
if (!Number.isFinite(inputPrice) || inputPrice < 0) {
  console.error('--input-price takes USD per million input tokens, a number of at least 0');
  process.exit(2);
}
let tools: ToolSpec[];
try {
  tools = JSON.parse(readFileSync(file, 'utf8')) as ToolSpec[];
  if (!Array.isArray(tools) || !tools.every((tool) => typeof tool?.name === 'string')) throw new Error('not a list of tools with names');
} catch (error) {
  console.error(`${file}: ${error instanceof Error ? error.message : String(error)}; give a JSON list of tools ({ name, description, parameters })`);
  process.exit(2);
}

const usd = (tokens: number): string => formatUsd((tokens * inputPrice) / 1_000_000);
console.log(`${tools.length} tools from ${file}; USD at $${inputPrice} per million input tokens`);
console.log('| request | all: tools, tokens, USD | relevant: tools, tokens, USD | dropped |');
console.log('| --- | --- | --- | --- |');
for (const request of REQUESTS) {
  const messages: ChatMessage[] = [{ role: 'user', content: `<userRequest>\n${request}\n</userRequest>` }];
  const all = toolsSent(messages, tools);
  const choice = chooseTools({ messages, tools, mode: 'relevant' });
  const trimmed = toolsSent(messages, choice.sent, choice.dropped);
  if (!all || !trimmed) continue;
  console.log(`| ${request} | ${all.sent}, ${all.tokens}, ${usd(all.tokens)} | ${trimmed.sent}, ${trimmed.tokens}, ${usd(trimmed.tokens)} | ${choice.dropped.length} |`);
}

/** One recorded session: the tools offered (by name), the request's words a tool name shares, and the tools called in order. */
interface RecordedSession {
  source: string;
  conversation: string | null;
  offered: string;
  requestWords: string[];
  url: boolean;
  /** Each call, as the tools any one of which would have done. */
  needs: string[][];
}

const recordedFile = join(__dirname, '..', 'test/fixtures/agent/recorded-agent-sessions.json');
const recorded = JSON.parse(readFileSync(recordedFile, 'utf8')) as { offerings: Record<string, string[]>; sessions: RecordedSession[] };

/**
 * Replays one session's calls against `relevant`: each round is sent the tools chosen for the request and
 * the calls made so far in its conversation; a call whose tools were all left out is a tool gone missing
 * (and is counted once: the session is taken to go on as if it had been made).
 */
function missing(session: RecordedSession, earlier: readonly string[]): { calls: number; missed: string[]; sent: number; offered: number } {
  const offered = (recorded.offerings[session.offered] ?? []).map((name): ToolSpec => ({ name, description: '', parameters: {} }));
  const request = `${session.requestWords.join(' ')}${session.url ? ' https://example.invalid/' : ''}`;
  const called = [...earlier];
  const missed: string[] = [];
  let sent = 0;
  for (const alternatives of session.needs) {
    const messages: ChatMessage[] = [
      { role: 'user', content: `<userRequest>\n${request}\n</userRequest>` },
      ...(called.length ? [{ role: 'assistant' as const, content: '', toolCalls: called.map((name, index) => ({ id: `call-${index}`, name, arguments: '{}' })) }] : []),
    ];
    const choice = chooseTools({ messages, tools: offered, mode: 'relevant' });
    sent = Math.max(sent, choice.sent.length);
    if (!alternatives.some((name) => choice.sent.some((tool) => tool.name === name))) missed.push(alternatives.join(' or '));
    called.push(alternatives[0] as string);
  }
  if (session.needs.length === 0) sent = chooseTools({ messages: [{ role: 'user', content: `<userRequest>\n${request}\n</userRequest>` }], tools: offered, mode: 'relevant' }).sent.length;
  return { calls: session.needs.length, missed, sent, offered: offered.length };
}

console.log('');
console.log(`${recorded.sessions.length} recorded requests from test/fixtures/agent/recorded-agent-sessions.json: the tools "relevant" would have left out that the session called`);
console.log('| request | tools offered, sent | tool calls | called but not sent |');
console.log('| --- | --- | --- | --- |');
const before = new Map<string, string[]>();
let calls = 0;
let missedCalls = 0;
let sessionsMissing = 0;
for (const session of recorded.sessions) {
  const earlier = session.conversation ? (before.get(session.conversation) ?? []) : [];
  const result = missing(session, earlier);
  if (session.conversation) before.set(session.conversation, [...earlier, ...session.needs.map((alternatives) => alternatives[0] as string)]);
  calls += result.calls;
  missedCalls += result.missed.length;
  if (result.missed.length > 0) sessionsMissing++;
  console.log(`| ${session.source} | ${result.offered}, ${result.sent} | ${result.calls} | ${result.missed.join(', ') || 'none'} |`);
}
console.log(`${sessionsMissing} of ${recorded.sessions.length} requests would have lost a tool they called; ${missedCalls} of ${calls} calls`);
