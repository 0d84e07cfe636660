/**
 * What one call to a model costs, for ordering the chain and for the price cap.
 */
import { callCost, type ModelSpec } from '../panel';
import type { ModelFacts } from '../providers/provider';
import type { RouteRequest } from './types';

/** Tokens assumed for a call that did not say, roughly one chat turn with some context. */
export const DEFAULT_INPUT_TOKENS = 1_000;
export const DEFAULT_OUTPUT_TOKENS = 400;

/** Prices a call on a model in USD, or null when no price is known. Local models cost 0. */
export type CallPricer = (spec: ModelSpec, local: boolean, request: RouteRequest) => number | null;

export function knownPrice(spec: ModelSpec, local: boolean, facts: ModelFacts | undefined): { input: number; output: number } | null {
  if (spec.price) return spec.price;
  if (facts?.price) return facts.price;
  return local ? { input: 0, output: 0 } : null;
}

/** Prices by tokens: the panel's price, else the catalog's, else unknown. */
export function tokenPricer(facts: ReadonlyMap<string, ModelFacts> = new Map()): CallPricer {
  return (spec, local, request) => {
    const price = knownPrice(spec, local, facts.get(spec.slug));
    if (!price) return null;
    const input = request.inputTokens ?? DEFAULT_INPUT_TOKENS;
    const output = request.outputTokens ?? DEFAULT_OUTPUT_TOKENS;
    return callCost(price, input, output);
  };
}
