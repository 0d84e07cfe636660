/**
 * The provider's catalog: what it says about its models' prices, context windows and accepted
 * parameters, fetched from an OpenAI-style `/models` list and cached in a file.
 *
 * @remarks
 * Used for economics, never as a capability check. Advertised parameters are recorded but not
 * believed: the origin lab asked three models for logprobs, all three advertised them in
 * `supported_parameters`, and one returned null on every request. Every failure here is soft —
 * a stale price orders the cascade slightly wrong, a hard failure would refuse to start because a
 * metadata endpoint was slow — so the order is: a fresh cache, a fetch, the cache however old, nothing.
 */
import { dirname } from 'node:path';
import * as z from 'zod';
import type { Clock } from '../clock';
import { writeFileAtomic } from '../files/atomicWrite';
import { aliasCandidates } from '../aliasCandidates';
import { ensureFolder, readFileIfExists } from '../files/safeFiles';
import { Deadline } from './deadline';
import type { ModelFacts } from './provider';
import { BodyTooLarge, joinUrl, MAX_LIST_BYTES, readBodyCapped, type FetchLike } from './transport';
import { callCost } from '../panel';

/** A cache younger than this is used without asking the network, ms (a day: list prices change monthly, not hourly). */
export const CATALOG_FRESH_MS = 24 * 60 * 60 * 1000;
/** How long a catalog fetch may take before the cache is used instead, ms. */
export const CATALOG_TIMEOUT_MS = 10_000;
/** The cache file's format version. */
const CACHE_VERSION = 1;
/**
 * The largest cache file read, bytes.
 *
 * @remarks
 * OpenRouter's list, the largest catalog Rung reads, caches as well under 1 MiB; the bound is for a
 * file that is not Rung's cache at all, read whole on the thread. The caches live in the user's own
 * folders (the extension's global storage, the CLI's cache folder), where a cloned folder cannot put one.
 */
const CACHE_MAX_BYTES = 16 * 1024 * 1024;

/** One model as the catalog describes it. */
export interface CatalogEntry {
  slug: string;
  /** USD per million tokens; absent when the catalog gives none or a variable one. */
  price?: { input: number; output: number };
  /** Tokens. */
  context?: number;
  /** `supported_parameters` as advertised: recorded, not believed. */
  advertised: string[];
}

/** Where the catalog in hand came from. */
export type CatalogSource = 'network' | 'cache' | 'none';

export class Catalog {
  private readonly bySlug: Map<string, CatalogEntry>;

  constructor(
    entries: Iterable<CatalogEntry>,
    /** When the entries were fetched, ms since the epoch; null for an empty catalog. */
    readonly fetchedAt: number | null,
    readonly source: CatalogSource,
    /** What went wrong on the way, when something did ("fetch failed (503); using the cache from …"). */
    readonly note?: string,
  ) {
    this.bySlug = new Map([...entries].map((entry) => [entry.slug, entry]));
  }

  static empty(note?: string): Catalog {
    return new Catalog([], null, 'none', note);
  }

  get size(): number {
    return this.bySlug.size;
  }

  entries(): CatalogEntry[] {
    return [...this.bySlug.values()];
  }

  /**
   * One model, found with or without OpenRouter's floating-alias tilde.
   *
   * @remarks
   * The catalog lists `vendor/model-latest` while a panel may say `~vendor/model-latest`; a lookup that
   * missed on the tilde would price the model at nothing and the price cap would never see it.
   */
  entry(slug: string): CatalogEntry | undefined {
    for (const candidate of aliasCandidates(slug)) {
      const entry = this.bySlug.get(candidate);
      if (entry) return entry;
    }
    return undefined;
  }

  /** The entry as {@link ModelFacts}, for the ranking's price walk. */
  facts(slug: string): ModelFacts | undefined {
    const entry = this.entry(slug);
    if (!entry) return undefined;
    return {
      slug,
      ...(entry.price ? { price: entry.price } : {}),
      ...(entry.context !== undefined ? { context: entry.context } : {}),
      advertised: entry.advertised,
    };
  }

  /** USD for a call from its token counts at list price; undefined when the price is unknown. */
  cost(slug: string, inputTokens: number, outputTokens: number): number | undefined {
    const price = this.entry(slug)?.price;
    if (!price) return undefined;
    return callCost(price, inputTokens, outputTokens);
  }
}

const listSchema = z.looseObject({
  data: z.array(
    z.looseObject({
      id: z.string(),
      context_length: z.number().nullable().optional(),
      pricing: z
        .looseObject({ prompt: z.union([z.string(), z.number()]).optional(), completion: z.union([z.string(), z.number()]).optional() })
        .optional(),
      supported_parameters: z.array(z.string()).nullable().optional(),
    }),
  ),
});

const cacheSchema = z.object({
  version: z.literal(CACHE_VERSION),
  fetchedAt: z.number(),
  /** The list's address; absent in a cache written before it was recorded, which is then taken as this server's. */
  url: z.string().optional(),
  models: z.array(
    z.object({
      slug: z.string(),
      price: z.object({ input: z.number(), output: z.number() }).optional(),
      context: z.number().optional(),
      advertised: z.array(z.string()).default([]),
    }),
  ),
});

/** Reads an OpenAI-style `/models` list (OpenRouter's carries pricing, context and parameters). */
export function parseModelList(json: unknown): CatalogEntry[] | undefined {
  const parsed = listSchema.safeParse(json);
  if (!parsed.success) return undefined;
  return parsed.data.data.map((model) => {
    const input = perMillion(model.pricing?.prompt);
    const output = perMillion(model.pricing?.completion);
    return {
      slug: model.id,
      ...(input !== undefined && output !== undefined ? { price: { input, output } } : {}),
      ...(model.context_length ? { context: model.context_length } : {}),
      advertised: model.supported_parameters ?? [],
    };
  });
}

/**
 * A per-token price (OpenRouter writes `"0.00000015"`) as USD per million tokens (0.15); undefined for
 * a missing, unreadable or negative one (`"-1"` is OpenRouter's "variable", as on its auto router).
 */
export function perMillion(perToken: string | number | undefined): number | undefined {
  if (perToken === undefined || perToken === '') return undefined;
  const value = Number(perToken);
  if (!Number.isFinite(value) || value < 0) return undefined;
  // Twelve significant digits drop the binary noise of the multiplication (0.15000000000000002).
  return Number((value * 1_000_000).toPrecision(12));
}

export interface LoadCatalogOptions {
  /** The provider's API base (`https://openrouter.ai/api/v1`); the list is `<baseUrl>/models`. */
  baseUrl: string;
  /**
   * Where the cache lives; the caller decides (the extension's global storage, the user's cache folder,
   * a temp dir in tests). Null: no cache is read or written, and every load asks the network.
   */
  cachePath: string | null;
  clock: Clock;
  fetch?: FetchLike;
  /** Sent as a bearer token when given; never written anywhere. */
  apiKey?: string;
  signal?: AbortSignal;
  timeoutMs?: number;
  /** A cache younger than this is used without fetching; 0 always fetches. */
  freshMs?: number;
}

/**
 * Loads the catalog: a fresh cache, else a fetch (cached on success), else the cache however old, else
 * nothing. Never throws.
 *
 * @remarks
 * A cache dated after now is stale, not fresh: with `now - fetchedAt` negative it passed "younger than a
 * day" for ever, and a cache dated 2100 that priced a dear model at $0 was believed without a fetch, past
 * the user's price cap. A clock set back after a fetch costs one fetch more.
 */
export async function loadCatalog(options: LoadCatalogOptions): Promise<Catalog> {
  const now = options.clock.now();
  const url = joinUrl(options.baseUrl, '/models');
  const cachePath = options.cachePath;
  const cached = cachePath === null ? undefined : await readCache(cachePath, url);
  if (cached && isFresh(cached.fetchedAt, now, options.freshMs ?? CATALOG_FRESH_MS)) return cached.catalog;
  const fetched = await fetchList(url, options);
  if (fetched.entries) {
    const catalog = new Catalog(fetched.entries, now, 'network');
    if (cachePath === null) return catalog;
    const written = await writeCache(cachePath, url, catalog);
    return written ? catalog : new Catalog(fetched.entries, now, 'network', `could not write the cache at ${cachePath}`);
  }
  if (cached) {
    return new Catalog(
      cached.catalog.entries(),
      cached.fetchedAt,
      'cache',
      `fetch failed (${fetched.reason}); using the cache from ${new Date(cached.fetchedAt).toISOString()}`,
    );
  }
  return Catalog.empty(`fetch failed (${fetched.reason}) and there is no cache`);
}

/** Whether a cache fetched at `fetchedAt` may stand without a fetch at `now`: not from the future, and younger than `freshMs`. */
function isFresh(fetchedAt: number, now: number, freshMs: number): boolean {
  return fetchedAt <= now && now - fetchedAt < freshMs;
}

async function fetchList(url: string, options: LoadCatalogOptions): Promise<{ entries?: CatalogEntry[]; reason: string }> {
  const doFetch = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
  const timeoutMs = options.timeoutMs ?? CATALOG_TIMEOUT_MS;
  const deadline = new Deadline(options.signal);
  deadline.arm(timeoutMs);
  try {
    const headers: Record<string, string> = { accept: 'application/json' };
    if (options.apiKey) headers.authorization = `Bearer ${options.apiKey}`;
    const response = await doFetch(url, { headers, signal: deadline.signal });
    if (!response.ok) return { reason: `HTTP ${response.status}` };
    const text = await readBodyCapped(response, MAX_LIST_BYTES);
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      // A page where the list should be (a local server's web UI, a proxy's login) answered: no network fault.
      return { reason: `the answer was not JSON (${response.headers.get('content-type') ?? 'no content type'})` };
    }
    const entries = parseModelList(json);
    return entries ? { entries, reason: '' } : { reason: 'the answer was not a model list' };
  } catch (error) {
    if (deadline.stopped) return { reason: 'stopped' };
    if (deadline.timedOut) return { reason: `no answer within ${timeoutMs} ms` };
    if (error instanceof BodyTooLarge)
      return { reason: `the list was ${error.message}, far more than any catalogue (a fixed limit), and was not read` };
    return { reason: 'network error' };
  } finally {
    deadline.clear();
  }
}

/**
 * The cache at `path`, when it holds the list at `url`.
 *
 * @remarks
 * The file is named by provider, and a provider's `baseUrl` can change under the same name (a panel
 * moved from one gateway to another, a local server on a new port): another server's list would price
 * this one's models, or leave them unpriced, for a day, and stand in for a failed fetch however old.
 */
async function readCache(path: string, url: string): Promise<{ catalog: Catalog; fetchedAt: number } | undefined> {
  try {
    // Never through a symbolic link, from a pipe or past the size bound (see safeFiles.ts).
    const bytes = readFileIfExists(path, { maxBytes: CACHE_MAX_BYTES });
    if (bytes === undefined) return undefined;
    const parsed = cacheSchema.safeParse(JSON.parse(bytes.toString('utf8')));
    if (!parsed.success) return undefined;
    if (parsed.data.url !== undefined && parsed.data.url !== url) return undefined;
    const fetchedAt = parsed.data.fetchedAt;
    return { catalog: new Catalog(parsed.data.models, fetchedAt, 'cache'), fetchedAt };
  } catch {
    // Missing or unreadable: the same as no cache.
    return undefined;
  }
}

/**
 * Writes the cache whole (a temporary file, then a rename) so a reader never sees half of one.
 *
 * @remarks
 * Through the ledger's atomic write: its temp file is created with `O_EXCL` and `O_NOFOLLOW`. The temp
 * name was `<path>.<pid>.tmp`, opened with `w`, so a link planted under a guessed pid was written through.
 */
async function writeCache(path: string, url: string, catalog: Catalog): Promise<boolean> {
  try {
    ensureFolder(dirname(path));
    writeFileAtomic(
      path,
      Buffer.from(`${JSON.stringify({ version: CACHE_VERSION, fetchedAt: catalog.fetchedAt, url, models: catalog.entries() })}\n`, 'utf8'),
    );
    return true;
  } catch {
    return false;
  }
}
