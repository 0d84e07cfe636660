/**
 * The context windows a local OpenAI-compatible server reports for its models (vLLM, llama.cpp's
 * `llama-server`, LM Studio), learned as {@link ModelFacts} the way Ollama's parameter sizes are.
 *
 * @remarks
 * Such a server has no catalog (a catalog is fetched only with a key), so without this a model on it
 * had no known context unless the panel stated one, and the ranking never prunes an unknown context:
 * a prompt longer than the server's window was sent to it, and the server refused it or cut it. Each of
 * the three servers says its window somewhere else, so all three places are asked at once:
 *
 * - vLLM: `GET /v1/models`, each entry's `max_model_len`.
 * - llama.cpp: `GET /props`, `default_generation_settings.n_ctx` — the window a request gets on the
 *   server as it was started (`-c`, per slot), the real limit — and, should that fail, `GET /v1/models`,
 *   `meta.n_ctx_train`: the window the model was trained for, an upper bound, so it prunes only what
 *   cannot fit at all.
 * - LM Studio: `GET /api/v0/models`, `loaded_context_length` for a loaded model (it was loaded with
 *   that window), else `max_context_length`.
 *
 * The same patience as Ollama's probe ({@link PROBE_TIMEOUT_MS}) bounds all three together, and
 * nothing here throws or marks the provider down: a server that answers none of them, answers with
 * something else, or is not there leaves the window unknown — unpruned, as before — and the answer
 * carries one note saying why, for the log. A window the panel states is never asked for.
 *
 * llama.cpp's `/v1/models` also gives each model's parameter count (`meta.n_params`), which is all the
 * ladder needs for a local tier (ladder.ts): read from that one list, it costs no request of its own.
 *
 * A window left unknown is asked for again ({@link LocalServerFactsSource}): the look-up runs when the
 * providers connect, and a server the user starts after that would otherwise stay unknown, and
 * unpruned, until the next reconnect.
 */
import * as z from 'zod';
import type { Clock } from '../clock';
import { Deadline } from './deadline';
import { PROBE_CACHE_MS, PROBE_TIMEOUT_MS } from './ollamaAdapter';
import type { ModelFacts } from './provider';
import { BodyTooLarge, errorCode, isRecord, joinUrl, MAX_LIST_BYTES, readBodyCapped, type FetchLike } from './transport';

/** Where a learned window came from, strongest first: the order in which they are believed. */
export type ContextSource = 'llama.cpp n_ctx' | 'LM Studio' | 'vLLM max_model_len' | 'llama.cpp n_ctx_train';

/** The parsed JSON of each endpoint that answered 2xx with JSON; undefined for one that did not. */
export interface ServerAnswers {
  /** `GET /v1/models` (vLLM, llama.cpp, and LM Studio's plain list). */
  models?: unknown;
  /** `GET /props` (llama.cpp). */
  props?: unknown;
  /** `GET /api/v0/models` (LM Studio). */
  lmStudio?: unknown;
}

/** One model's learned window and which answer gave it. */
export interface LearnedContext {
  context: number;
  source: ContextSource;
}

/** An entry of a `data` list; every field but `id` is checked where it is read, so one odd field spoils nothing. */
const entrySchema = z.looseObject({ id: z.string() });
const listSchema = z.looseObject({ data: z.array(z.unknown()) });
const propsSchema = z.looseObject({ default_generation_settings: z.looseObject({ n_ctx: z.unknown() }) });

/**
 * The window each of `slugs` has according to the answers; a slug no answer gives a window for is absent.
 *
 * @remarks
 * Entries are matched to slugs by `id`, exactly: vLLM refuses a name it does not serve, and LM Studio
 * loads the model a name names. llama.cpp is the exception: a `llama-server` not in router mode holds one
 * model and answers every name with it (its `/v1/models` "always has one single element", and that
 * element's id is a file path no panel would use), so its `/props` window is every slug's when the list
 * has at most one model. In router mode the list has several and `/props` is not one model's, so it is
 * not used.
 */
export function contextWindows(answers: ServerAnswers, slugs: readonly string[]): Map<string, LearnedContext> {
  const listed = listEntries(answers.models);
  const lmStudio = listEntries(answers.lmStudio);
  const serverWindow = listed === undefined || listed.length <= 1 ? propsWindow(answers.props) : undefined;
  const found = new Map<string, LearnedContext>();
  for (const slug of slugs) {
    const studio = lmStudio?.find((entry) => entry.id === slug);
    const model = listed?.find((entry) => entry.id === slug);
    const candidates: [number | undefined, ContextSource][] = [
      [serverWindow, 'llama.cpp n_ctx'],
      [windowOf(studio?.loaded_context_length) ?? windowOf(studio?.max_context_length), 'LM Studio'],
      [windowOf(model?.max_model_len), 'vLLM max_model_len'],
      [windowOf(isRecord(model?.meta) ? model.meta.n_ctx_train : undefined), 'llama.cpp n_ctx_train'],
    ];
    const first = candidates.find(([context]) => context !== undefined);
    if (first?.[0] !== undefined) found.set(slug, { context: first[0], source: first[1] });
  }
  return found;
}

/**
 * The parameter count, in billions, each of `slugs` has according to llama.cpp's `/v1/models` (`meta.n_params`).
 *
 * @remarks
 * Matched by `id` as {@link contextWindows} does, and for the same reason a list of one model lends its
 * count to every slug: a `llama-server` not in router mode answers every name with the one model it
 * holds, listed under its file path. Only llama.cpp writes `meta`, so vLLM's and LM Studio's lists give
 * nothing here, and their models keep the tier a size in their id gives.
 */
export function parameterCounts(models: unknown, slugs: readonly string[]): Map<string, number> {
  const listed = listEntries(models) ?? [];
  const found = new Map<string, number>();
  for (const slug of slugs) {
    const entry = listed.find((model) => model.id === slug) ?? (listed.length === 1 ? listed[0] : undefined);
    const count = positiveInteger(isRecord(entry?.meta) ? entry.meta.n_params : undefined);
    if (count !== undefined) found.set(slug, count / 1e9);
  }
  return found;
}

export interface LocalServerFactsOptions {
  /** The provider's name, for the note. */
  name: string;
  /** The OpenAI-compatible base (`http://127.0.0.1:1234/v1`); `/props` and `/api/v0/models` are beside its `/v1`. */
  baseUrl: string;
  /** The slugs whose window the panel leaves out. */
  slugs: readonly string[];
  /**
   * The slugs whose parameter count is wanted, for the ladder's tier: every model of the panel on the
   * server (a `role` overrides the tier anyway). Absent: none. Asked of `/v1/models` alone when no window is wanted.
   */
  sizeSlugs?: readonly string[];
  /** Sent as a bearer token when set (an LM Studio with authentication on). */
  apiKey?: string;
  fetch?: FetchLike;
  signal?: AbortSignal;
  timeoutMs?: number;
}

export interface LocalServerFacts {
  /** Only the slugs a window or a parameter count was learned for, each with its `context` or `parameterBillions`. */
  facts: ModelFacts[];
  /** Why some slugs' windows stay unknown, in one line for the log; absent when none does or the caller stopped. */
  note?: string;
}

/** Asks the server's three endpoints at once and learns what windows it can; never throws, never waits past the timeout. */
export async function learnLocalServerFacts(options: LocalServerFactsOptions): Promise<LocalServerFacts> {
  const sizeSlugs = options.sizeSlugs ?? [];
  const askWindows = options.slugs.length > 0;
  if (!askWindows && sizeSlugs.length === 0) return { facts: [] };
  const timeoutMs = options.timeoutMs ?? PROBE_TIMEOUT_MS;
  const doFetch = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
  const root = serverRoot(options.baseUrl);
  const deadline = new Deadline(options.signal);
  deadline.arm(timeoutMs);
  const headers: Record<string, string> = { accept: 'application/json' };
  if (options.apiKey) headers.authorization = `Bearer ${options.apiKey}`;
  const get = async (url: string, label: string): Promise<Fetched> => {
    try {
      const response = await doFetch(url, { headers, signal: deadline.signal });
      if (!response.ok) return { reason: `${label} answered ${response.status}` };
      try {
        return { json: JSON.parse(await readBodyCapped(response, MAX_LIST_BYTES)) };
      } catch (error) {
        if (deadline.signal.aborted) throw new Error('aborted while reading', { cause: error });
        if (error instanceof BodyTooLarge)
          return { reason: `${label} answered ${error.message}, far more than a model list (a fixed limit), and was not read` };
        return { reason: `${label} answered something that is not JSON` };
      }
    } catch (error) {
      if (deadline.stopped) return { reason: 'stopped' };
      if (deadline.timedOut) return { reason: `no answer from ${root} within ${timeoutMs} ms` };
      const code = errorCode(error);
      return { reason: `no server at ${root}${code ? ` (${code})` : ''}` };
    }
  };
  const notAsked = Promise.resolve<Fetched>({});
  let fetched: [Fetched, Fetched, Fetched];
  try {
    fetched = await Promise.all([
      get(joinUrl(options.baseUrl, '/models'), 'GET /v1/models'),
      askWindows ? get(joinUrl(root, '/props'), 'GET /props') : notAsked,
      askWindows ? get(joinUrl(root, '/api/v0/models'), 'GET /api/v0/models') : notAsked,
    ]);
  } finally {
    deadline.clear();
  }
  const [models, props, lmStudio] = fetched;
  const learned = contextWindows({ models: models.json, props: props.json, lmStudio: lmStudio.json }, options.slugs);
  const sizes = parameterCounts(models.json, sizeSlugs);
  const facts = [...new Set([...learned.keys(), ...sizes.keys()])].map((slug): ModelFacts => {
    const context = learned.get(slug)?.context;
    const parameterBillions = sizes.get(slug);
    return { slug, ...(context !== undefined ? { context } : {}), ...(parameterBillions !== undefined ? { parameterBillions } : {}) };
  });
  const unknown = options.slugs.filter((slug) => !learned.has(slug));
  if (unknown.length === 0 || deadline.stopped) return { facts };
  const them = unknown.length === 1 ? 'it' : 'them';
  const reasons = new Set([
    models.reason ?? listReason(models.json, 'GET /v1/models', `max_model_len or meta.n_ctx_train for ${them}`),
    props.reason ??
      (propsWindow(props.json) === undefined
        ? 'GET /props gave no default_generation_settings.n_ctx'
        : "GET /props is not one model's (the server lists several)"),
    lmStudio.reason ?? listReason(lmStudio.json, 'GET /api/v0/models', `max_context_length for ${them}`),
  ]);
  const which = unknown.length === 1 ? `of ${unknown[0]} is` : `of ${unknown.join(', ')} are`;
  return {
    facts,
    note:
      `${options.name}: the context window ${which} unknown (${[...reasons].join('; ')}), ` +
      `so a prompt too long for ${them} is not pruned; give the model a "context" in the panel to set one`,
  };
}

interface Fetched {
  json?: unknown;
  reason?: string;
}

/**
 * How long after a look-up that left a window unknown the server is asked again, at the earliest, ms.
 *
 * @remarks
 * Ollama's probe cache ({@link PROBE_CACHE_MS}, 30 s), after which the health board asks a down Ollama
 * again: a local server started after Rung connected is found on the first call 30 s after the last
 * look-up, as a restarted Ollama is. Asking on every call would add a request, and up to
 * {@link PROBE_TIMEOUT_MS} of waiting, to each call routed while a server stays silent — a vLLM LoRA
 * adapter's window is `null` for good.
 */
export const RELEARN_AFTER_MS = PROBE_CACHE_MS;

/** What {@link LocalServerFactsSource.relearn} learned: the facts newly known and a line for the log about them. */
export interface RelearnedFacts {
  /** Only what was newly learned, per slug (`context`, `parameterBillions`). */
  facts: ModelFacts[];
  /** One line naming the windows now known; absent when none is. */
  note?: string;
}

/**
 * One local server's facts, learned when the providers connect and asked again, for what is still
 * unknown, while a window is.
 *
 * @remarks
 * Asked again only on {@link relearn}, which the session awaits before routing a call (as it awaits the
 * health board's recheck), never on a timer: a server nobody routes to costs nothing. The look-up is the
 * same one, so the same {@link PROBE_TIMEOUT_MS} caps what a call can wait for it, and it asks only for
 * the windows and sizes still unknown. A sizeless server (vLLM, LM Studio) is not asked again for sizes
 * alone, since it never gives them; when a window is asked again, a size still unknown is asked with it.
 */
export class LocalServerFactsSource {
  private readonly clock: Clock;
  private readonly relearnAfterMs: number;
  private unknownWindows: readonly string[];
  private unknownSizes: readonly string[];
  /** When the last look-up started, ms since the epoch; undefined before the first. */
  private askedAt: number | undefined;
  private asking = false;

  constructor(private readonly options: Omit<LocalServerFactsOptions, 'signal'> & { clock: Clock; relearnAfterMs?: number }) {
    this.clock = options.clock;
    this.relearnAfterMs = options.relearnAfterMs ?? RELEARN_AFTER_MS;
    this.unknownWindows = options.slugs;
    this.unknownSizes = options.sizeSlugs ?? [];
  }

  /** The first look-up, when the providers connect: every window and size asked for. */
  learn(signal?: AbortSignal): Promise<LocalServerFacts> {
    return this.ask(signal);
  }

  /**
   * Asks again for the windows still unknown, when one is and {@link RELEARN_AFTER_MS} have passed since
   * the last look-up; resolves to undefined without asking otherwise, or while another look-up is under way.
   */
  async relearn(signal?: AbortSignal): Promise<RelearnedFacts | undefined> {
    if (this.unknownWindows.length === 0 || this.asking) return undefined;
    if (this.askedAt !== undefined && this.clock.now() - this.askedAt < this.relearnAfterMs) return undefined;
    const before = new Set(this.unknownWindows);
    const { facts } = await this.ask(signal);
    const windows = facts.filter((known) => known.context !== undefined && before.has(known.slug));
    if (windows.length === 0) return { facts };
    const each = windows.map((known) => `${known.slug} (${known.context})`).join(', ');
    const which = windows.length === 1 ? 'window' : 'windows';
    return {
      facts,
      note: `${this.options.name}: the server now gives the context ${which} of ${each}, so a prompt too long for ${windows.length === 1 ? 'it' : 'them'} is pruned`,
    };
  }

  private async ask(signal?: AbortSignal): Promise<LocalServerFacts> {
    const previous = this.askedAt;
    this.askedAt = this.clock.now();
    this.asking = true;
    try {
      const learned = await learnLocalServerFacts({
        ...this.options,
        slugs: this.unknownWindows,
        sizeSlugs: this.unknownSizes,
        ...(signal ? { signal } : {}),
      });
      // A look-up the caller stopped says nothing about the server: the next call may ask at once.
      if (signal?.aborted) this.askedAt = previous;
      const windows = new Set(learned.facts.filter((known) => known.context !== undefined).map((known) => known.slug));
      const sizes = new Set(learned.facts.filter((known) => known.parameterBillions !== undefined).map((known) => known.slug));
      this.unknownWindows = this.unknownWindows.filter((slug) => !windows.has(slug));
      this.unknownSizes = this.unknownSizes.filter((slug) => !sizes.has(slug));
      return learned;
    } finally {
      this.asking = false;
    }
  }
}

/** The base without its trailing `/v1`: where llama.cpp's `/props` and LM Studio's `/api/v0` live. */
function serverRoot(baseUrl: string): string {
  return baseUrl.replace(/\/+$/, '').replace(/\/v1$/, '');
}

function listEntries(json: unknown): z.infer<typeof entrySchema>[] | undefined {
  const parsed = listSchema.safeParse(json);
  if (!parsed.success) return undefined;
  return parsed.data.data.flatMap((entry) => {
    const read = entrySchema.safeParse(entry);
    return read.success ? [read.data] : [];
  });
}

function propsWindow(json: unknown): number | undefined {
  const parsed = propsSchema.safeParse(json);
  return parsed.success ? windowOf(parsed.data.default_generation_settings.n_ctx) : undefined;
}

/** Why a list that answered gave no window for the slugs in question. */
function listReason(json: unknown, label: string, missing: string): string {
  return listEntries(json) === undefined ? `${label} answered something that is not a model list` : `${label} lists no ${missing}`;
}

/** A window is a whole number of tokens above zero; anything else (null, "4096", -1) is no window. */
function windowOf(value: unknown): number | undefined {
  return positiveInteger(value);
}

function positiveInteger(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isInteger(value) && value > 0 ? value : undefined;
}
