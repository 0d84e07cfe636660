/**
 * Builds an adapter for every provider a panel's models use, probes each once into the health board,
 * and gathers what the providers say about their models as facts for the ranking.
 *
 * @remarks
 * One function for the extension and the CLI, which differ only in where keys live (SecretStorage,
 * `RUNG_<PROVIDER>_API_KEY`) and where the catalog is cached — so both are asked for, never read here.
 * A provider kind that needs the editor (`vscode-lm`) or has no address gets no adapter and a probe
 * failure with the reason, so the ranking drops its models in the walk and says why. An Ollama
 * provider is watched by the board, so `health.recheck()` can find it again once it is back.
 */
import { loadCatalog, Catalog } from '../catalog/catalog';
import type { Clock } from '../clock';
import type { Panel } from '../panel';
import { OllamaAdapter } from './ollamaAdapter';
import { OpenAiCompatibleAdapter } from './openAiCompatibleAdapter';
import type { ModelFacts, ProviderAdapter } from './provider';
import type { ProviderHealthBoard } from './providerHealthBoard';
import type { FetchLike } from './transport';

export interface ConnectProvidersOptions {
  panel: Panel;
  clock: Clock;
  health: ProviderHealthBoard;
  /** A provider's key, or undefined; it goes to the adapter and nowhere else. */
  keyFor: (provider: string) => string | undefined;
  /** How the user sets a missing key, for the message (`set RUNG_OPENROUTER_API_KEY`). */
  keyHint?: (provider: string) => string;
  /** Where a provider's catalog is cached; without it no catalog is fetched. */
  catalogPath?: (provider: string) => string;
  fetch?: FetchLike;
  signal?: AbortSignal;
}

export interface ConnectedProviders {
  adapters: Map<string, ProviderAdapter>;
  /** By configured slug: Ollama's parameter sizes and digests, the catalog's prices and context. */
  facts: Map<string, ModelFacts>;
  catalogs: Map<string, Catalog>;
}

export async function connectProviders(options: ConnectProvidersOptions): Promise<ConnectedProviders> {
  const { panel, clock, health } = options;
  const adapters = new Map<string, ProviderAdapter>();
  const facts = new Map<string, ModelFacts>();
  const catalogs = new Map<string, Catalog>();
  const used = [...new Set(panel.models.map((model) => model.provider))];
  await Promise.all(
    used.map(async (name) => {
      const config = panel.providers[name];
      if (!config || !config.baseUrl || (config.kind !== 'ollama' && config.kind !== 'openai-compatible')) {
        health.recordProbe(name, false, `provider kind ${config?.kind ?? 'unknown'} has no adapter here`);
        return;
      }
      if (config.kind === 'ollama') {
        const adapter = new OllamaAdapter({ name, baseUrl: config.baseUrl, clock, ...(options.fetch ? { fetch: options.fetch } : {}) });
        adapters.set(name, adapter);
        // The board probes again through the adapter's cache when asked to recheck.
        health.watch(name, (signal) => adapter.probe(signal));
        const probe = await adapter.probe(options.signal);
        // A probe the caller stopped says nothing about the server: marking it down would blame the
        // provider for the user's Ctrl-C ("provider ollama unavailable: probe stopped").
        if (options.signal?.aborted) return;
        health.recordProbe(name, probe.ok, probe.reason);
        for (const model of probe.models) facts.set(model.slug, model);
        return;
      }
      const apiKey = options.keyFor(name) || undefined;
      const cachePath = options.catalogPath?.(name);
      const catalog =
        apiKey && cachePath
          ? await loadCatalog({ baseUrl: config.baseUrl, cachePath, clock, apiKey, ...(options.fetch ? { fetch: options.fetch } : {}), ...(options.signal ? { signal: options.signal } : {}) })
          : Catalog.empty();
      catalogs.set(name, catalog);
      const adapter = new OpenAiCompatibleAdapter({
        name,
        baseUrl: config.baseUrl,
        clock,
        apiKey,
        catalog,
        ...(options.keyHint ? { keyHint: options.keyHint(name) } : {}),
        ...(options.fetch ? { fetch: options.fetch } : {}),
      });
      adapters.set(name, adapter);
      const missing = adapter.missingKey();
      health.recordProbe(name, missing === null, missing ?? undefined);
      for (const model of panel.models.filter((spec) => spec.provider === name)) {
        const known = catalog.facts(model.slug);
        if (known) facts.set(model.slug, known);
      }
    }),
  );
  return { adapters, facts, catalogs };
}
