/**
 * The capability ladder: where a model sits when nothing has been measured.
 *
 * @remarks
 * T0 deterministic (no model), T1 small local (qwen2.5:3b), T2 mid local (qwen3:14b), T3 large local
 * (qwen3.6:27b), T4 cloud. Ollama's own model list gives the local tiers by parameter size; a role in
 * the panel overrides it, because the user may know better than a parameter count.
 *
 * An OpenAI-compatible server on this machine's loopback address (LM Studio, llama.cpp's server, vLLM)
 * is local too: it cannot be a cloud bill, and ranking it as T4 sent a fresh workspace's first calls to
 * the cloud while a free model sat idle on the same machine. llama.cpp's server reports its model's
 * parameter count (`meta.n_params`, localServerFacts.ts), which gives the tier as Ollama's size does and,
 * like it, stands over a size in the id. vLLM and LM Studio report none, so there the tier is read from a
 * size in the model id (`qwen2.5-7b-instruct`), else the mid tier: T1 would claim a smallness nothing
 * showed, and T3 would open a dear cloud rung sooner than a 3b model deserves.
 */
import type { ModelSpec, ProviderConfig } from '../panel';
import { isLocal } from '../providers/locality';
import type { ModelFacts } from '../providers/provider';
import type { Tier } from './types';

/** Below this many billion parameters a local model is T1 (small); the ladder's qwen2.5:3b sits here. */
export const SMALL_LOCAL_MAX_BILLIONS = 8;
/** Below this a local model is T2 (mid: qwen3:14b); at or above it T3 (large: qwen3.6:27b). */
export const MID_LOCAL_MAX_BILLIONS = 20;

export function tierOf(spec: ModelSpec, config: ProviderConfig | undefined, facts: ModelFacts | undefined): Tier {
  if (!isLocal(config)) return 4;
  switch (spec.role) {
    case 'base':
      return 1;
    case 'mid':
      return 2;
    case 'top':
      return 3;
    case undefined:
      break;
  }
  const billions = facts?.parameterBillions ?? parameterBillionsFromSlug(spec.slug);
  if (billions === undefined) return 2;
  if (billions < SMALL_LOCAL_MAX_BILLIONS) return 1;
  if (billions < MID_LOCAL_MAX_BILLIONS) return 2;
  return 3;
}

/** Reads a size tag such as `qwen2.5:3b` or `llama3.1:70b-instruct` when Ollama has not told us. */
export function parameterBillionsFromSlug(slug: string): number | undefined {
  const match = /[:\-_](\d+(?:\.\d+)?)b(?![a-z])/i.exec(slug);
  return match ? Number(match[1]) : undefined;
}
