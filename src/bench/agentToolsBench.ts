/**
 * `node scripts/agent-tools.mjs [TOOLS.json] [--input-price USD_PER_M]`: what Agent mode's tool schemas
 * take of a request, sent whole (`rung.agentTools: "all"`) and trimmed (`"relevant"`), for a few
 * requests of the kinds a morning's work brings; the figures of BENCHMARKS.md's agent tools section.
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
