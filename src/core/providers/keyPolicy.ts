/**
 * Whether an OpenAI-compatible provider needs a key before Rung sends it a call.
 *
 * @remarks
 * Local servers that speak the OpenAI protocol (LM Studio, llama.cpp's server, vLLM) take calls
 * without a key, and asking a user to invent one to get past Rung was the first thing a local setup
 * met. A server on this machine's loopback address cannot be a cloud bill, so by default it needs no
 * key; any other address does, so a cloud endpoint with a forgotten key is still pruned with "no API
 * key" before a call leaves the machine. The panel's `key` says otherwise either way: `none` for a
 * keyless server on the local network, `required` for a local proxy that wants one.
 */
import type { ProviderConfig } from '../panel';

/** Whether calls to this provider wait for a key: the panel's `key` when given, else "not on loopback". */
export function keyRequired(config: Pick<ProviderConfig, 'baseUrl' | 'key'>): boolean {
  if (config.key) return config.key === 'required';
  return !isLoopbackUrl(config.baseUrl);
}

/**
 * Whether a URL names this machine's loopback interface: `localhost` (and `*.localhost`, which
 * resolvers keep on loopback by RFC 6761), `127.0.0.0/8` or `::1`. A URL that does not parse is not.
 */
export function isLoopbackUrl(url: string | undefined): boolean {
  if (!url) return false;
  let host: string;
  try {
    host = new URL(url).hostname.toLowerCase();
  } catch {
    return false;
  }
  if (host === 'localhost' || host.endsWith('.localhost')) return true;
  if (host === '[::1]') return true;
  return /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}
