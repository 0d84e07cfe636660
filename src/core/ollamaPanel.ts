/**
 * A panel from the models a local Ollama already holds: what Rung routes to when nothing is configured,
 * and what "Create Panel File" writes.
 *
 * @remarks
 * A user who installed Rung next to a running Ollama should get routing without writing a file, and a
 * user who asks for a panel file should get one naming models they have. The file used to be an example
 * naming models nobody had pulled (`qwen2.5-coder:7b` and a cloud model), written over the panel Rung had
 * built from the local Ollama, so the first question failed "not pulled (404)"; and that example left
 * `tools` off, so in Agent mode, which always sends tools, its local model was pruned "needs tools".
 *
 * The models are the ones `/api/tags` lists, each asked about on `/api/show` (ollamaShow.ts): whether it
 * answers chats (an embedding model cannot, and calling one would be graded as the model's failure rather
 * than the choice's), whether it takes tools, its context window and its size. They are ordered by size,
 * and each gets the role the capability ladder gives its size (under 8 billion parameters base, under 20
 * mid, else top: routing/ladder.ts), which is all a panel without evidence can say; the ratings take over
 * from there. Where Ollama does not say whether a model takes tools (before 0.6.4), it is declared to: a
 * model that refuses them answers 400 "does not support tools", which skips that rung without grading it.
 */
import { randomUUID } from 'node:crypto';
import { access, link, rm, writeFile } from 'node:fs/promises';
import { ensureFolder } from './files/safeFiles';
import { dirname } from 'node:path';
import type { Clock } from './clock';
import { parsePanel, slugProblem, type PanelFile, type Role } from './panel';
import { OllamaAdapter } from './providers/ollamaAdapter';
import { showOllamaModel } from './providers/ollamaShow';
import type { FetchLike } from './providers/transport';
import { MID_LOCAL_MAX_BILLIONS, parameterBillionsFromSlug, SMALL_LOCAL_MAX_BILLIONS } from './routing/ladder';

/** Name fragments of models that embed text rather than chat, for an Ollama too old to list capabilities. */
const EMBEDDING_NAMES = /embed|(^|[-_/:.])(bge|e5|minilm|all-minilm)([-_/:.]|$)/i;

/** The most models a panel built from Ollama lists: beyond this the walk only adds rungs nobody asked for. */
export const FIRST_RUN_MAX_MODELS = 4;

/** How many `/api/show` questions are in flight at once: Ollama reads a manifest from disk for each. */
const SHOW_CONCURRENCY = 4;

/**
 * The most models asked about on `/api/show` when a panel is built.
 *
 * @remarks
 * Every listed model was asked, and a server listing 200 that each took their time held a session's
 * opening for 101 s. A panel keeps {@link FIRST_RUN_MAX_MODELS} of them, so sixteen spread across the
 * sizes the tags give leave it the same choice of sizes; with the probe's 2 s patience and four at once,
 * asking takes at most 8 s.
 */
export const MAX_SHOWN_MODELS = 16;

/** One local model as a panel is built from it: what `/api/tags` and `/api/show` said. */
export interface LocalModel {
  slug: string;
  /** Parameters, billions. */
  parameterBillions?: number;
  /** Context window, tokens. */
  context?: number;
  /** Whether it takes tool calls; absent when Ollama did not say. */
  tools?: boolean;
  /** Whether it answers chats; false for an embedding model, absent when Ollama did not say. */
  chat?: boolean;
}

/** Where the local Ollama is, and how to ask it. */
export interface OllamaLookup {
  baseUrl: string;
  clock: Clock;
  fetch?: FetchLike;
  signal?: AbortSignal;
}

/** What the local Ollama gave: a panel over its chat models and what was left out of it, or why there is none. */
export type OllamaPanel = { found: true; panel: PanelFile; models: LocalModel[]; leftOut: string[] } | { found: false; reason: string };

/** A panel over the chat models given, or undefined when none of them can chat. */
export function panelFromOllamaModels(models: readonly LocalModel[], provider = 'ollama'): PanelFile | undefined {
  const chat = models.filter((model) => model.chat !== false && !EMBEDDING_NAMES.test(model.slug));
  if (chat.length === 0) return undefined;
  // Unknown sizes sort last: a model whose size Ollama did not report is more likely a large import.
  const size = (model: LocalModel): number => model.parameterBillions ?? parameterBillionsFromSlug(model.slug) ?? Number.POSITIVE_INFINITY;
  const bySize = [...chat].sort((a, b) => size(a) - size(b) || a.slug.localeCompare(b.slug));
  return {
    models: spread(bySize, FIRST_RUN_MAX_MODELS).map((model) => {
      const role = roleForSize(model.parameterBillions ?? parameterBillionsFromSlug(model.slug));
      return {
        slug: model.slug,
        provider,
        ...(role ? { role } : {}),
        tools: model.tools ?? true,
        ...(model.context !== undefined ? { context: model.context } : {}),
      };
    }),
  };
}

/**
 * The role the capability ladder gives a local model of this size; none when the size is unknown (the
 * ladder then puts it in the middle, as it would without a role).
 */
export function roleForSize(billions: number | undefined): Role | undefined {
  if (billions === undefined) return undefined;
  if (billions < SMALL_LOCAL_MAX_BILLIONS) return 'base';
  if (billions < MID_LOCAL_MAX_BILLIONS) return 'mid';
  return 'top';
}

/**
 * The local Ollama's models, each with what `/api/show` says of it, and what was left out and why (as
 * sentences); why not, when it did not answer.
 *
 * @remarks
 * A name the server lists is its word: one that no panel can hold (a space, a quote, `$(…)`, a name of
 * megabytes) is left out before it is asked about, or it would be written into a panel file that then
 * fails to load. Past {@link MAX_SHOWN_MODELS}, the models asked are spread across the sizes and the rest
 * left out.
 */
export async function localOllamaModels(
  lookup: OllamaLookup,
): Promise<{ ok: true; models: LocalModel[]; leftOut: string[] } | { ok: false; reason: string }> {
  const adapter = new OllamaAdapter({ baseUrl: lookup.baseUrl, clock: lookup.clock, ...(lookup.fetch ? { fetch: lookup.fetch } : {}) });
  const probe = await adapter.probe(lookup.signal);
  if (!probe.ok) return { ok: false, reason: noAnswer(lookup.baseUrl, probe.reason) };
  const leftOut: string[] = [];
  const unnamed = probe.models.filter((model) => slugProblem(model.slug) !== undefined).length;
  if (unnamed > 0) leftOut.push(`${unnamed} model${unnamed === 1 ? '' : 's'} whose name a panel cannot hold`);
  const chatNamed = probe.models.filter((model) => slugProblem(model.slug) === undefined && !EMBEDDING_NAMES.test(model.slug));
  const bySize = [...chatNamed].sort((a, b) => tagSize(a) - tagSize(b) || a.slug.localeCompare(b.slug));
  const listed = spread(bySize, MAX_SHOWN_MODELS);
  if (listed.length < chatNamed.length)
    leftOut.push(`${chatNamed.length - listed.length} of its ${chatNamed.length} models, as at most ${MAX_SHOWN_MODELS} are asked about`);
  const models: LocalModel[] = [];
  for (let start = 0; start < listed.length; start += SHOW_CONCURRENCY) {
    const batch = listed.slice(start, start + SHOW_CONCURRENCY);
    const shown = await Promise.all(
      batch.map((model) =>
        showOllamaModel(model.slug, {
          baseUrl: lookup.baseUrl,
          ...(lookup.fetch ? { fetch: lookup.fetch } : {}),
          ...(lookup.signal ? { signal: lookup.signal } : {}),
        }),
      ),
    );
    batch.forEach((model, index) => {
      const details = shown[index];
      // `/api/show`'s count stands over the tags' size label: a cloud model's label can be the bare count.
      const billions = details?.parameterBillions ?? model.parameterBillions;
      models.push({
        slug: model.slug,
        ...(billions !== undefined ? { parameterBillions: billions } : {}),
        ...(details?.context !== undefined ? { context: details.context } : {}),
        ...(details?.tools !== undefined ? { tools: details.tools } : {}),
        ...(details?.chat !== undefined ? { chat: details.chat } : {}),
      });
    });
  }
  return { ok: true, models, leftOut };
}

/** A listed model's size in billions from its tag or its name; an unknown size sorts last, as in the panel. */
function tagSize(model: { slug: string; parameterBillions?: number }): number {
  return model.parameterBillions ?? parameterBillionsFromSlug(model.slug) ?? Number.POSITIVE_INFINITY;
}

/**
 * "no local Ollama answered at URL (ECONNREFUSED)": the probe's reason as a clause, without saying the
 * address twice (the probe's own reason names it: "no server at URL (ECONNREFUSED)").
 */
function noAnswer(baseUrl: string, reason: string | undefined): string {
  const detail = (reason ?? '').replace(`no server at ${baseUrl}`, '').trim();
  return `no local Ollama answered at ${baseUrl}${detail ? ` (${detail.replace(/^\((.*)\)$/, '$1')})` : ''}`;
}

/**
 * A panel over the local Ollama's chat models, or why there is none, as a clause: "no local Ollama
 * answered at …", or "the Ollama at … holds no chat model".
 */
export async function ollamaPanel(lookup: OllamaLookup): Promise<OllamaPanel> {
  const found = await localOllamaModels(lookup);
  if (!found.ok) return { found: false, reason: found.reason };
  const panel = panelFromOllamaModels(found.models);
  if (!panel) return { found: false, reason: `the Ollama at ${lookup.baseUrl} holds no chat model (ollama pull qwen2.5:3b, say)` };
  return { found: true, panel, models: found.models, leftOut: found.leftOut };
}

/** The example a panel file starts from when no Ollama answers: a local model and a cloud one above it. */
export const EXAMPLE_PANEL: PanelFile = {
  models: [
    { slug: 'qwen2.5-coder:7b', provider: 'ollama', role: 'base', tools: true, context: 32768 },
    { slug: 'openai/gpt-4o-mini', provider: 'openrouter', role: 'top', price: { input: 0.15, output: 0.6 }, context: 128000, tools: true },
  ],
  routing: { explore: 0.05 },
};

/** A new panel file's content, and the sentence that goes with it (JSON holds no comments). */
export interface PanelFileSeed {
  panel: PanelFile;
  /** The file's text: the panel as indented JSON. */
  text: string;
  /** What the file is and what it still needs, for the user, beside the opened file. */
  note: string;
  /** Whether the panel is the local Ollama's models (else the example). */
  fromOllama: boolean;
}

/** The panel a new panel file holds: the local Ollama's models, else the example with what it needs first. */
export async function seedPanelFile(lookup: OllamaLookup): Promise<PanelFileSeed> {
  const found = await ollamaPanel(lookup);
  if (found.found) {
    const described = found.panel.models.map(
      (model) =>
        `${model.slug} (${[model.role, model.tools ? 'tools' : 'no tools', model.context !== undefined ? `${model.context} tokens` : undefined].filter(Boolean).join(', ')})`,
    );
    return {
      panel: found.panel,
      text: panelText(found.panel),
      note: `The panel lists the models the Ollama at ${lookup.baseUrl} has, smallest first: ${described.join(', ')}.${found.leftOut.length > 0 ? ` Left out: ${found.leftOut.join('; ')}.` : ''} Add a cloud model above them to climb to when they fail.`,
      fromOllama: true,
    };
  }
  const pulls = EXAMPLE_PANEL.models.filter((model) => model.provider === 'ollama').map((model) => `ollama pull ${model.slug}`);
  return {
    panel: EXAMPLE_PANEL,
    text: panelText(EXAMPLE_PANEL),
    note: `This is an example, since ${found.reason}: its models must be pulled before they answer (${pulls.join(', ')}), and openai/gpt-4o-mini needs a key for openrouter (Rung: Set Provider Key). Or replace them with models you have.`,
    fromOllama: false,
  };
}

/** The panel as a file's text: two-space JSON and a final newline, as editors write it. */
export function panelText(panel: PanelFile): string {
  return `${JSON.stringify(panel, null, 2)}\n`;
}

/**
 * Writes a new panel file at `path` from {@link seedPanelFile}; a file already there is left as it is.
 *
 * @remarks
 * The file appears whole or not at all: it is written beside its place and then linked there, which
 * fails rather than replace a file written between the look and the write (another window, the user),
 * and the caller then says it is there and opens it. Written in place, the editor's file watcher saw the
 * new file while it was still empty and the extension read it as a broken panel.
 *
 * @throws PanelError, writing nothing, when the panel would not load as a panel file.
 */
export async function createPanelFile(
  path: string,
  lookup: OllamaLookup,
): Promise<{ created: true; seed: PanelFileSeed } | { created: false }> {
  if (await exists(path)) return { created: false };
  const seed = await seedPanelFile(lookup);
  // Read as any panel file is before a byte is written: a file Rung makes must load. Throws PanelError.
  parsePanel(seed.panel, path);
  // By the ledger's rule: a `.rung/` without a .gitignore gets one before the panel is written, and a linked one is refused.
  ensureFolder(dirname(path), { beforeWrite: true });
  const temporary = `${path}.${process.pid}-${randomUUID().slice(0, 8)}.tmp`;
  try {
    await writeFile(temporary, seed.text, { flag: 'wx' });
    await link(temporary, path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return { created: false };
    throw error;
  } finally {
    await rm(temporary, { force: true });
  }
  return { created: true, seed };
}

async function exists(path: string): Promise<boolean> {
  try {
    await access(path);
    return true;
  } catch {
    return false;
  }
}

/** At most `count` models spread across the sizes, keeping the smallest and the largest. */
function spread<T>(sorted: T[], count: number): T[] {
  if (sorted.length <= count) return sorted;
  const picked: T[] = [];
  for (let index = 0; index < count; index++) {
    picked.push(sorted[Math.round((index * (sorted.length - 1)) / (count - 1))] as T);
  }
  return picked;
}
