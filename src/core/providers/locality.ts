/**
 * Whether a provider's models run on this machine, read from its panel entry alone.
 *
 * @remarks
 * A fact about the provider, beside the key policy it depends on: the ranking, the ladder, the
 * session's wiring and the ledger view all ask it, and none of them should reach into the routing
 * rules to learn it.
 */
import type { ProviderConfig } from '../panel';
import { isLoopbackUrl } from './keyPolicy';

/**
 * Whether a provider's models run on this machine: Ollama's, and a keyless OpenAI-compatible server on loopback.
 *
 * @remarks
 * A loopback server whose panel entry says `key: "required"` stays cloud: that is how the panel marks
 * a local proxy (LiteLLM, a gateway) that forwards to a paid API, and ranking a proxy as free would
 * spend money on the calls the ladder meant for local models, past the daily budget.
 */
export function isLocal(config: ProviderConfig | undefined): boolean {
  return config?.kind === 'ollama' || localServerHost(config) !== undefined;
}

/**
 * The host and port of a local OpenAI-compatible server (`127.0.0.1:1234`), for the reason a decision
 * gives; undefined for any other provider, Ollama included (its models are local by kind).
 */
export function localServerHost(config: ProviderConfig | undefined): string | undefined {
  const baseUrl = config?.kind === 'openai-compatible' && config.key !== 'required' ? config.baseUrl : undefined;
  if (baseUrl === undefined || !isLoopbackUrl(baseUrl)) return undefined;
  return new URL(baseUrl).host;
}
