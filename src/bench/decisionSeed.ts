/**
 * A synthetic decision log shaped like real routing: calls that escalate, rungs pruned for the reasons
 * the router writes, exploration at the default rate, paid and local attempts spread over a month.
 *
 * @remarks
 * Used by the panel benchmark (100k rows) and by the real-host tests (a few dozen rows): both need a
 * log whose rows look like the router's so that paging, filters and the ladder do their real work.
 * Deterministic for a seed, so two runs measure the same log.
 */
import { appendFileSync, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import type { DecisionRow } from '../core/decisions/decision';
import { seededRandom } from '../core/random';

/** A model the seeded calls climb through; `price` is USD per million tokens, null for a local model. */
export interface SeedModel {
  slug: string;
  provider: string;
  price: { input: number; output: number } | null;
}

export const SEED_MODELS: readonly SeedModel[] = [
  { slug: 'qwen2.5:3b', provider: 'ollama', price: null },
  { slug: 'qwen3:14b', provider: 'ollama', price: null },
  { slug: 'deepseek/deepseek-v4-flash', provider: 'openrouter', price: { input: 0.1, output: 0.4 } },
  { slug: 'openai/gpt-4o-mini', provider: 'openrouter', price: { input: 0.15, output: 0.6 } },
];

export const SEED_CLASSES = ['plan', 'chat', 'edit/typescript', 'edit/python', 'leaf'];

/** Reasons the router prunes a rung with, as it writes them. */
const PRUNE_REASONS = ['needs tools', 'busy qwen3:14b 1/1 in flight', 'maxTotalPerProvider=2 reached for ollama', 'measured 0/8 success class=edit/typescript', 'output price 75.00 > cap 20.00'];
const FAIL_REASONS = ['schema: missing property "steps"', 'syntax: unexpected token at line 12', 'command `npm test` exited 1', 'thumbs down'];
const DAY_MS = 24 * 60 * 60 * 1000;
/** The days the seeded calls spread over, ending at `now`: the spend chart's whole window. */
const SEED_SPAN_DAYS = 30;

/**
 * About `count` rows (whole calls, so it may run a row or two over), oldest first, ending at `now`.
 */
export function seedDecisionRows(count: number, now: number, seed = 1, models: readonly SeedModel[] = SEED_MODELS, classes: readonly string[] = SEED_CLASSES): DecisionRow[] {
  const random = seededRandom(seed);
  const rows: DecisionRow[] = [];
  const span = SEED_SPAN_DAYS * DAY_MS;
  const step = span / Math.max(1, count);
  let call = 0;
  while (rows.length < count) {
    const classKey = classes[Math.floor(random() * classes.length)] as string;
    const candidates = models.map((model) => model.slug).filter(() => random() > 0.1);
    if (candidates.length === 0) candidates.push((models[0] as SeedModel).slug);
    const pruned = random() < 0.4 ? [{ model: 'qwen3.6:27b', reason: PRUNE_REASONS[Math.floor(random() * PRUNE_REASONS.length)] as string }] : [];
    const explore = random() < 0.05;
    const propensity = explore ? 0.05 / candidates.length : 0.95;
    const base = now - span + rows.length * step;
    const callId = `seed-${seed}-${call++}`;
    for (let rung = 0; rung < candidates.length; rung++) {
      const model = models.find((entry) => entry.slug === candidates[rung]) ?? (models[0] as SeedModel);
      const last = rung === candidates.length - 1;
      const verdict = last || random() < 0.6 ? (random() < 0.9 ? 'pass' : 'unverified') : 'fail';
      const inputTokens = 400 + Math.floor(random() * 4_000);
      const outputTokens = 50 + Math.floor(random() * 800);
      rows.push({
        v: 1,
        at: Math.round(base + rung * 1_500),
        call: callId,
        run: null,
        class: classKey.split('/')[0] as string,
        shape: classKey.includes('/') ? (classKey.split('/')[1] as string) : null,
        candidates,
        rung,
        escalation: candidates.slice(0, rung),
        model: model.slug,
        resolved: model.slug,
        explore: rung === 0 && explore,
        propensity: rung === 0 ? propensity : 1,
        verdict,
        verdictReason: verdict === 'fail' ? (FAIL_REASONS[Math.floor(random() * FAIL_REASONS.length)] as string) : null,
        inputTokens,
        outputTokens,
        cost: model.price ? (model.price.input * inputTokens + model.price.output * outputTokens) / 1_000_000 : 0,
        latencyMs: 300 + Math.floor(random() * 4_000),
        reason: rung === 0 ? (explore ? 'explore: buying evidence on a non-greedy rung' : 'measured 11/14 success class=' + classKey) : `escalated after ${candidates[rung - 1]} failed`,
        mode: model.price ? 'cloud' : 'local',
        pruned,
        final: false,
      });
      if (verdict !== 'fail') break;
    }
  }
  return rows;
}

/** Appends `rows` to a decision log file as JSON lines, creating its folder. */
export function writeDecisionLog(path: string, rows: readonly DecisionRow[]): void {
  mkdirSync(dirname(path), { recursive: true });
  const CHUNK = 10_000;
  for (let index = 0; index < rows.length; index += CHUNK) {
    appendFileSync(path, `${rows.slice(index, index + CHUNK).map((row) => JSON.stringify(row)).join('\n')}\n`);
  }
}
