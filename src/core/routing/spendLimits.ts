/**
 * The spending limits a paid attempt must stay inside: the daily budget and the ceiling on one answer,
 * judged by what the attempt may cost before it is sent.
 *
 * @remarks
 * A limit read against what has already been spent lets the call that crosses it through: a day at
 * $0.178 of a $0.20 budget sent an Agent mode request whose 18,000 input tokens were known before it
 * went, and ended at $0.232. So a paid attempt is priced before it goes at its worst: its input as
 * estimated (every message, tool call and tool schema it sends) and its output at the most it may
 * write, the request's own maximum or {@link OUTPUT_TOKENS_BOUND}, which the session then holds the
 * paid rung to. An attempt whose worst would cross a limit is left out with that reason, in the ranking
 * (before the climb) and again before each paid rung of the climb (after the call's own spend so far).
 * A model whose price nobody knows cannot be bounded and is judged, as before, by what has been spent.
 */
import { callCost, type ModelSpec } from '../panel';
import type { ModelFacts } from '../providers/provider';
import { knownPrice } from './pricing';
import type { RouteRequest } from './types';

/**
 * The most output tokens a paid attempt is priced at, and held to, under a spending limit, when the
 * request states no maximum of its own.
 *
 * @remarks
 * 8,192 is the most Rung declares to the editor as a model's output limit (the model picker's
 * `maxOutputTokens`), so no caller in the editor expects a longer answer; an answer cut there fails as
 * one cut at the model's own limit does.
 */
export const OUTPUT_TOKENS_BOUND = 8_192;

/** What one paid attempt may cost at most, and the tokens it was priced at. */
export interface BoundedCost {
  usd: number;
  inputTokens: number;
  outputTokens: number;
}

/**
 * What an attempt on `spec` may cost at most: its known input, and its output at the request's bound;
 * null when its price or its input is not known, or when the model is local and unpriced.
 */
export function boundedCost(
  spec: ModelSpec,
  local: boolean,
  facts: ModelFacts | undefined,
  request: Pick<RouteRequest, 'contextTokens' | 'outputTokensBound'>,
): BoundedCost | null {
  const price = knownPrice(spec, local, facts);
  if (!price || request.contextTokens === undefined) return null;
  const outputTokens = request.outputTokensBound ?? OUTPUT_TOKENS_BOUND;
  return { usd: callCost(price, request.contextTokens, outputTokens), inputTokens: request.contextTokens, outputTokens };
}

/** Whether the request sets any spending limit. */
export function hasSpendLimits(request: Pick<RouteRequest, 'budget' | 'answerCeilingUsd'>): boolean {
  return request.budget !== undefined || request.answerCeilingUsd !== undefined;
}

/**
 * Why a paid attempt on `spec` is left out by a spending limit, without the `pruned: ` a logged reason
 * opens with; null when it may go. `spentOnCall` is what this call's earlier attempts cost.
 */
export function spendLimitCause(
  spec: ModelSpec,
  local: boolean,
  facts: ModelFacts | undefined,
  request: Pick<RouteRequest, 'budget' | 'answerCeilingUsd' | 'contextTokens' | 'outputTokensBound'>,
  spentOnCall = 0,
): string | null {
  if (local || !hasSpendLimits(request)) return null;
  const { budget, answerCeilingUsd } = request;
  if (budget) {
    const spent = budget.spentTodayUsd + spentOnCall;
    if (spent >= budget.dailyUsd) return `daily budget ${usd(budget.dailyUsd)} reached (${usd(spent)} spent today)`;
  }
  if (answerCeilingUsd !== undefined && spentOnCall >= answerCeilingUsd)
    return `answer ceiling ${usd(answerCeilingUsd)} reached (${usd(spentOnCall)} spent on this answer)`;
  const worst = boundedCost(spec, local, facts, request);
  if (!worst) return null;
  const may = `this attempt may cost up to ${estimate(worst.usd)} (${worst.inputTokens} tokens in, at most ${worst.outputTokens} out)`;
  if (budget && budget.spentTodayUsd + spentOnCall + worst.usd > budget.dailyUsd)
    return `daily budget ${usd(budget.dailyUsd)} would be crossed: ${may}, ${usd(budget.spentTodayUsd + spentOnCall)} spent today`;
  if (answerCeilingUsd !== undefined && spentOnCall + worst.usd > answerCeilingUsd)
    return `answer ceiling ${usd(answerCeilingUsd)} would be crossed: ${may}${spentOnCall > 0 ? `, ${estimate(spentOnCall)} spent on this answer` : ''}`;
  return null;
}

/** A limit or a day's spend in a reason, to the cent, as the budget's reason has always said it. */
function usd(value: number): string {
  return `$${value.toFixed(2)}`;
}

/** An estimate in a reason: to the cent from $0.10, else two significant figures (`$0.054`). */
function estimate(value: number): string {
  if (value >= 0.1) return usd(value);
  if (value <= 0) return '$0';
  return `$${value.toFixed(Math.min(8, 1 - Math.floor(Math.log10(value))))}`;
}
