/**
 * Builds an adapter for every provider a panel's models use, through one factory per provider `kind`,
 * probes each once into the health board, and gathers what the providers say about their models as
 * facts for the ranking.
 *
 * @remarks
 * One function for the extension and the CLI, which differ only in where keys live (SecretStorage,
 * `RUNG_<PROVIDER>_API_KEY`) and where the catalog is cached — so both are asked for, never read here.
 * The kinds the core can build on its own (`ollama`, `openai-compatible`) are
 * {@link DEFAULT_PROVIDER_FACTORIES}; a kind that needs the editor (`vscode-lm`) is a factory the
 * extension passes in, so adding one never touches the core. A kind no factory builds, or a provider
 * without an address where its factory needs one, gets no adapter and a probe failure with the reason,
 * so the ranking drops its models in the walk and says why. A provider whose factory gives a probe
 * (Ollama) is watched by the board, so `health.recheck()` can find it again once it is back.
 */
import { loadCatalog, Catalog } from '../providers/catalog';
import type { Clock } from '../clock';
import type { Panel } from '../panel';
import { localServerHost } from '../providers/locality';
import type { ProviderFactory } from './types';
import { OllamaAdapter } from '../providers/ollamaAdapter';
import { keyRequired } from '../providers/keyPolicy';
import { LocalServerFactsSource, type LocalServerFacts } from '../providers/localServerFacts';
import { OpenAiCompatibleAdapter } from '../providers/openAiCompatibleAdapter';
import type { ModelFacts, ProviderAdapter } from '../providers/provider';
import type { ProviderHealthBoard } from '../providers/providerHealthBoard';
import type { FetchLike } from '../providers/transport';

/**
 * What a factory may return beside the adapter: how to ask whether the provider is there, what it
 * knows about its models, and whether it can take calls at all right now (a missing key).
 */
export interface ProviderConnection {
  adapter: ProviderAdapter;
  /** Asks the provider whether it is there and what it holds; cached by the adapter, never throws. */
  probe?: (signal?: AbortSignal) => Promise<{ ok: boolean; reason?: string; models?: ModelFacts[] }>;
  /** Known without asking the provider: a missing key makes it `{ ok: false, reason }`. */
  ready?: { ok: boolean; reason?: string };
  /** Facts about the panel's models (a catalog's prices and context windows). */
  facts?: ModelFacts[];
  /** The provider's catalog, when it has one. */
  catalog?: Catalog;
  /** Lines for the log about what could not be learned (a catalog that could not be fetched, a local server that gave no context window), and why. */
  notes?: string[];
  /**
   * Asks the provider again for facts it could not give when it connected (a local server started
   * since); resolves to the whole facts of each model it learned more about, and a line for the log.
   * Cheap to call before every call: it asks at most once per its own interval, and never throws.
   */
  relearn?: (signal?: AbortSignal) => Promise<{ facts: ModelFacts[]; notes?: string[] }>;
}

/** Builds the local Ollama adapter; its probe lists the models and their sizes. */
export const ollamaFactory: ProviderFactory = ({ name, baseUrl, clock, fetch }) => {
  if (!baseUrl) throw new ProviderSetupError(`provider ${name} (ollama) has no baseUrl`);
  const adapter = new OllamaAdapter({ name, baseUrl, clock, ...(fetch ? { fetch } : {}) });
  return { adapter, probe: async (signal) => adapter.probe(signal) };
};

/**
 * Builds an OpenAI-compatible adapter, with the provider's catalog when a key and a cache path are given,
 * and, for a local server, the context windows and parameter counts the server itself reports.
 *
 * @remarks
 * A provider on a loopback address, or with `key: "none"`, takes calls without a key (keyPolicy.ts).
 * A local server (one the ladder ranks as local: on loopback, not marked `key: "required"`) has no
 * catalog to give its windows, so it is asked for them (localServerFacts.ts), for the models whose
 * window the panel leaves out; what it reports stands before a catalog's, being the server's own limit.
 * Its parameter counts (llama.cpp's) are asked for every model on it, for the ladder's tier. While a
 * window stays unknown the server is asked again, now and then, through {@link ProviderConnection.relearn}.
 */
export const openAiCompatibleFactory: ProviderFactory = async ({
  name,
  baseUrl,
  apiKey,
  key,
  clock,
  catalogPath,
  keyHint,
  fetch,
  signal,
  models,
  modelsWithoutContext,
}) => {
  if (!baseUrl) throw new ProviderSetupError(`provider ${name} (openai-compatible) has no baseUrl`);
  const requireKey = keyRequired({ baseUrl, ...(key ? { key } : {}) });
  const local = localServerHost({ kind: 'openai-compatible', baseUrl, ...(key ? { key } : {}) }) !== undefined;
  const slugs = models ?? [];
  const source = local
    ? new LocalServerFactsSource({
        name,
        baseUrl,
        clock,
        slugs: modelsWithoutContext ?? slugs,
        sizeSlugs: slugs,
        ...(apiKey ? { apiKey } : {}),
        ...(fetch ? { fetch } : {}),
      })
    : undefined;
  const [catalog, server] = await Promise.all([
    apiKey && catalogPath !== undefined
      ? loadCatalog({ baseUrl, cachePath: catalogPath, clock, apiKey, ...(fetch ? { fetch } : {}), ...(signal ? { signal } : {}) })
      : Catalog.empty(),
    source ? source.learn(signal) : Promise.resolve<LocalServerFacts>({ facts: [] }),
  ]);
  const adapter = new OpenAiCompatibleAdapter({
    name,
    baseUrl,
    clock,
    apiKey,
    requireKey,
    catalog,
    ...(keyHint ? { keyHint } : {}),
    ...(fetch ? { fetch } : {}),
  });
  const missing = adapter.missingKey();
  // What the server reports stands over the catalog's, being the server's own limit; a later look-up adds to both.
  const known = new Map<string, ModelFacts>();
  for (const slug of slugs) {
    const listed = catalog.facts(slug);
    if (listed) known.set(slug, listed);
  }
  const add = (found: readonly ModelFacts[]): ModelFacts[] =>
    found.map((learned) => {
      const merged = { ...known.get(learned.slug), ...learned };
      known.set(learned.slug, merged);
      return merged;
    });
  add(server.facts);
  const notes = [catalogNote(name, catalog, signal), server.note].filter((note): note is string => note !== undefined);
  return {
    adapter,
    ready: missing === null ? { ok: true } : { ok: false, reason: missing },
    facts: [...known.values()],
    catalog,
    ...(notes.length > 0 ? { notes } : {}),
    ...(source
      ? {
          relearn: async (later?: AbortSignal) => {
            const found = await source.relearn(later);
            return { facts: add(found?.facts ?? []), ...(found?.note ? { notes: [found.note] } : {}) };
          },
        }
      : {}),
  };
};

/**
 * The catalog's own note (a failed fetch, a cache it could not write) as a line for the log, naming the
 * provider; undefined when there is none or the caller stopped the fetch.
 *
 * @remarks
 * A failed fetch used to be silent: the catalog fell back to its cache, however old, or to nothing, and
 * a model's price then came from a stale list or not at all (so the price cap could not act on it) with
 * nothing saying why. A fetch the user stopped is no fault of the provider's, and the one who stopped it
 * already knows.
 */
function catalogNote(name: string, catalog: Catalog, signal: AbortSignal | undefined): string | undefined {
  if (catalog.note === undefined || signal?.aborted) return undefined;
  return `${name}'s catalog: ${catalog.note}`;
}

/** The kinds the core builds by itself. */
export const DEFAULT_PROVIDER_FACTORIES: Readonly<Record<string, ProviderFactory>> = {
  ollama: ollamaFactory,
  'openai-compatible': openAiCompatibleFactory,
};

/** A provider its factory cannot build as configured (no address): its models are pruned with this reason. */
export class ProviderSetupError extends Error {
  override name = 'ProviderSetupError';
}

export interface ConnectProvidersOptions {
  panel: Panel;
  clock: Clock;
  health: ProviderHealthBoard;
  /** A provider's key, or undefined; it goes to the adapter and nowhere else. May be asynchronous (SecretStorage). */
  keyFor: (provider: string) => string | undefined | Promise<string | undefined>;
  /** How the user sets a missing key, for the message (`set RUNG_OPENROUTER_API_KEY`). */
  keyHint?: (provider: string) => string;
  /** Where a provider's catalog is cached (null: fetched, not cached); without it no catalog is fetched. */
  catalogPath?: (provider: string) => string | null;
  /** Factories by provider kind, over {@link DEFAULT_PROVIDER_FACTORIES}. */
  factories?: Readonly<Record<string, ProviderFactory>> | ReadonlyMap<string, ProviderFactory>;
  fetch?: FetchLike;
  signal?: AbortSignal;
}

export interface ConnectedProviders {
  adapters: Map<string, ProviderAdapter>;
  /** By configured slug: Ollama's parameter sizes and digests, the catalog's prices and context. */
  facts: Map<string, ModelFacts>;
  catalogs: Map<string, Catalog>;
  /** The providers' {@link ProviderConnection.notes}, for the log. */
  notes: string[];
  /**
   * Asks every provider that can for the facts it could not give when it connected
   * ({@link ProviderConnection.relearn}), all at once; resolves to the whole facts of each model some
   * provider learned more about, by configured slug, and their lines for the log.
   */
  relearn: (signal?: AbortSignal) => Promise<{ facts: ModelFacts[]; notes: string[] }>;
}

export async function connectProviders(options: ConnectProvidersOptions): Promise<ConnectedProviders> {
  const { panel, clock, health } = options;
  const factories = factoryRegistry(options.factories);
  const adapters = new Map<string, ProviderAdapter>();
  const facts = new Map<string, ModelFacts>();
  const catalogs = new Map<string, Catalog>();
  const notes: string[] = [];
  const relearners: NonNullable<ProviderConnection['relearn']>[] = [];
  const used = [...new Set(panel.models.map((model) => model.provider))];
  await Promise.all(
    used.map(async (name) => {
      const config = panel.providers[name];
      const factory = config ? factories.get(config.kind) : undefined;
      if (!config || !factory) {
        health.recordProbe(name, false, `provider kind ${config?.kind ?? 'unknown'} has no adapter here`);
        return;
      }
      let connection: ProviderConnection;
      try {
        const apiKey = (await options.keyFor(name)) || undefined;
        const built = await factory({
          name,
          baseUrl: config.baseUrl,
          apiKey,
          ...(config.key ? { key: config.key } : {}),
          clock,
          models: panel.models.filter((spec) => spec.provider === name).map((spec) => spec.slug),
          modelsWithoutContext: panel.models
            .filter((spec) => spec.provider === name && spec.context === undefined)
            .map((spec) => spec.slug),
          ...(options.keyHint ? { keyHint: options.keyHint(name) } : {}),
          ...(options.catalogPath ? { catalogPath: options.catalogPath(name) } : {}),
          ...(options.fetch ? { fetch: options.fetch } : {}),
          ...(options.signal ? { signal: options.signal } : {}),
        });
        connection = 'adapter' in built ? built : { adapter: built };
      } catch (error) {
        if (!(error instanceof ProviderSetupError)) throw error;
        health.recordProbe(name, false, `provider kind ${config.kind} has no adapter here: ${error.message}`);
        return;
      }
      adapters.set(name, connection.adapter);
      if (connection.catalog) catalogs.set(name, connection.catalog);
      notes.push(...(connection.notes ?? []));
      if (connection.relearn) relearners.push(connection.relearn);
      for (const known of connection.facts ?? []) facts.set(known.slug, known);
      if (connection.ready) health.recordProbe(name, connection.ready.ok, connection.ready.reason);
      const probe = connection.probe;
      if (!probe) return;
      // The board probes again through the adapter's cache when asked to recheck.
      health.watch(name, probe);
      const found = await probe(options.signal);
      // A probe the caller stopped says nothing about the server: marking it down would blame the
      // provider for the user's Ctrl-C ("provider ollama unavailable: probe stopped").
      if (options.signal?.aborted) return;
      health.recordProbe(name, found.ok, found.reason);
      for (const model of found.models ?? []) facts.set(model.slug, model);
    }),
  );
  const relearn = async (signal?: AbortSignal) => {
    const found = await Promise.all(relearners.map((ask) => ask(signal)));
    return { facts: found.flatMap((one) => one.facts), notes: found.flatMap((one) => one.notes ?? []) };
  };
  return { adapters, facts, catalogs, notes, relearn };
}

function factoryRegistry(given: ConnectProvidersOptions['factories']): Map<string, ProviderFactory> {
  const registry = new Map<string, ProviderFactory>(Object.entries(DEFAULT_PROVIDER_FACTORIES));
  const entries = given === undefined ? [] : given instanceof Map ? [...given] : Object.entries(given as Record<string, ProviderFactory>);
  for (const [kind, factory] of entries) registry.set(kind, factory);
  return registry;
}
