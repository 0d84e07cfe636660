/**
 * The panel file: which models one workspace may use, and the knobs of the router.
 *
 * @remarks
 * One format everywhere — the `rung.panel` setting, `.rung/panel.json` and `rung --panel` — so a
 * panel that works in the terminal works in the editor. Unknown keys are errors that name themselves:
 * a misspelt `maxOutputPrise` silently ignored would be a price cap the user believes in and does not have.
 */
import * as z from 'zod';
import { MAX_NAME_CHARS } from './boundedText';
import { parseJsonText } from './jsonText';
import { boundedPanelIssues, locatePanelIssues, MAX_PANEL_ISSUES, withMore } from './panelIssues';

export const ROLES = ['base', 'mid', 'top'] as const;
export type Role = (typeof ROLES)[number];

/** A cap: a whole number of calls, or null for "unbounded". Null never becomes 0. */
const cap = z.number().int().min(1).nullable().optional();

const capsSchema = z.strictObject({
  maxConsecutivePerProvider: cap,
  maxTotalPerProvider: cap,
});

const priceSchema = z.strictObject({
  /** USD per million input tokens. */
  input: z.number().min(0),
  /** USD per million output tokens. */
  output: z.number().min(0),
});

const modelSchema = z.strictObject({
  slug: z.string().min(1),
  provider: z.string().min(1),
  role: z.enum(ROLES).optional(),
  price: priceSchema.optional(),
  /** Context window, tokens. */
  context: z.number().int().positive().optional(),
  tools: z.boolean().optional(),
  /** Calls in flight at once for this model, across every process sharing the ledger. */
  maxConcurrent: z.number().int().positive().optional(),
});

/**
 * Whether a provider needs a key: `required`, or `none` for a server that takes calls without one.
 *
 * @remarks
 * Absent, a provider on a loopback address (LM Studio, llama.cpp's server, vLLM on 127.0.0.1) needs
 * none and any other does (see `keyRequired` in providers/keyPolicy.ts). The message for any other
 * value does not repeat it: a user who wrote their actual key here must not see it echoed in a log.
 */
const keySchema = z.enum(['required', 'none'], {
  error: () =>
    'must be "required" or "none"; the key itself never goes in the panel (Rung: Set Provider Key, or RUNG_<PROVIDER>_API_KEY for the CLI)',
});

/**
 * A provider's address: an `http:` or `https:` URL, the only schemes a model API is reached by.
 *
 * @remarks
 * A bare `z.string().url()` took `file:///etc/passwd`, `javascript:…` and `data:…` as readily, and a panel
 * file comes from the workspace, which may be a repository someone else wrote.
 */
const baseUrlSchema = z
  .string()
  .url()
  .refine((url) => ['http:', 'https:'].includes(schemeOf(url) ?? 'http:'), {
    error: (issue) =>
      `must be an http: or https: URL, not ${JSON.stringify(schemeOf(String(issue.input)))}: a model API is reached over HTTP`,
  });

const providerSchema = z.strictObject({
  kind: z.enum(['ollama', 'openai-compatible', 'vscode-lm', 'replay']),
  baseUrl: baseUrlSchema.optional(),
  key: keySchema.optional(),
});

/**
 * How long one attempt may take when the panel does not say, seconds: ten minutes.
 *
 * @remarks
 * The idle timers end a stream that stops sending, not one that keeps sending: a server that streams
 * content without end held a call for good. Ten minutes is the default request timeout of the OpenAI and
 * Anthropic SDKs, the longest those providers' own clients wait for one answer; a small local model on a
 * laptop's CPU (qwen2.5:3b at about 15 tokens a second) writes some 9,000 tokens in that time. A slower
 * model's panel raises it.
 */
export const DEFAULT_ATTEMPT_TIMEOUT_SECONDS = 600;
/** The longest `routing.attemptTimeoutSeconds` a panel may set: a day. */
export const MAX_ATTEMPT_TIMEOUT_SECONDS = 86_400;

/**
 * What a minute of the user's wait is worth when the panel does not say, USD.
 *
 * @remarks
 * A tenth of what a developer's minute costs an employer (about $1 a minute at $60 an hour), because a
 * wait is only partly lost: the user reads the answer as it streams, or turns to something else. At
 * this value a failed 3-second try costs $0.005, about a cloud edit's price, so a local model that
 * fails most edits stops opening them, while one that passes most keeps its place beside a cloud model
 * as fast as it (beside a 3-second cloud model at $0.01 a call, one that passes 80% keeps opening up to
 * about 7 s a try). Set 0 to plan on money alone, as Rung did before it weighed the wait.
 */
export const DEFAULT_WAIT_WORTH_PER_MINUTE = 0.1;
/** The most `routing.waitWorth` may be, USD a minute: far past any wage, so a typo of a few digits is caught. */
export const MAX_WAIT_WORTH_PER_MINUTE = 1_000;

const routingSchema = z.strictObject({
  /** Probability of opening with a non-greedy rung on a verifiable class; 0 turns exploration off. */
  explore: z.number().min(0).max(1).optional(),
  requireEvidence: z.boolean().optional(),
  tradeoff: z.enum(['quality', 'economy']).optional(),
  /**
   * Whether exploration may open with a paid (non-local) model the plan would not have opened with.
   * Off by default: a fresh workspace would otherwise send about one call in twenty (the default
   * rate) straight to the cloud.
   */
  explorePaid: z.boolean().optional(),
  /**
   * Probability of opening with any eligible rung, measured or not, drawn uniformly: an exploration
   * floor that keeps every opener's probability above zero, so the decision log can answer "what
   * would opening with X have cost?". 0 (the default) leaves the opener certain once rungs are measured.
   */
  exploreMeasured: z.number().min(0).max(1).optional(),
  /**
   * How long one attempt on one rung may take, from the request to the whole answer, seconds; past it the
   * attempt is a provider error (it grades nobody) and the climb goes on. At most a day, as no answer
   * takes longer and a timer cannot be set much further (about 24.8 days).
   */
  attemptTimeoutSeconds: z.number().positive().max(MAX_ATTEMPT_TIMEOUT_SECONDS).optional(),
  /**
   * Whether the planner reads the prompt's text: the per-prompt difficulty signal and the guessing floor
   * the answer's format gives. Off by default: on the recorded prompts neither paid its way at equal
   * accuracy (the text tells who can answer a prompt no better than chance there, and models guess by
   * letter habit rather than by coin), BENCHMARKS.md.
   */
  promptSignal: z.boolean().optional(),
  /**
   * What a minute of the user's waiting is worth, USD: the planner weighs each rung's expected wait at
   * this price beside its money, so a model that rarely passes stops opening once its failed tries cost
   * more in wait than they save in money. 0 plans on money alone. See {@link DEFAULT_WAIT_WORTH_PER_MINUTE}.
   */
  waitWorth: z.number().min(0).max(MAX_WAIT_WORTH_PER_MINUTE).optional(),
});

/**
 * The most models, providers or profiles one panel may list.
 *
 * @remarks
 * OpenRouter's whole catalogue is some 350 models. A panel file comes from the workspace, and one of
 * half a million `1`s gave zod half a million issues to make (2.3 s of the 4.7 s that file took once
 * each issue's place was found in linear time); a list past this is refused as one issue before its
 * entries are read, and zod checks an array's length before its items.
 */
export const MAX_PANEL_ENTRIES = 1_000;

export const panelSchema = z.strictObject({
  models: z.array(modelSchema).min(1).max(MAX_PANEL_ENTRIES),
  /** USD per million output tokens; acts only on a known price. */
  maxOutputPrice: z.number().positive().optional(),
  diversity: capsSchema.optional(),
  profiles: z.record(z.string(), capsSchema).optional(),
  routing: routingSchema.optional(),
  providers: z.record(z.string(), providerSchema).optional(),
});

export type PanelFile = z.infer<typeof panelSchema>;
export type ModelSpec = z.infer<typeof modelSchema>;
export type Price = z.infer<typeof priceSchema>;

/** USD for a call of these token counts at a price given per million tokens — the one place that sum is written. */
export function callCost(price: Price, inputTokens: number, outputTokens: number): number {
  return (price.input * inputTokens + price.output * outputTokens) / 1_000_000;
}
export type ProviderConfig = z.infer<typeof providerSchema>;
export type Tradeoff = 'quality' | 'economy';

export interface DiversityCaps {
  maxConsecutivePerProvider: number | null;
  maxTotalPerProvider: number | null;
}

/**
 * Environment variables, given by the caller: the core never reads `process.env`, so a test, the CLI
 * and the extension each say which environment a panel is read in.
 */
export type Environment = Record<string, string | undefined>;

/** A validated panel with every default filled in. */
export interface Panel {
  models: ModelSpec[];
  maxOutputPrice: number | null;
  diversity: DiversityCaps;
  profiles: Record<string, Partial<DiversityCaps>>;
  /**
   * `explorePaid` and `promptSignal` absent read as false; `attemptTimeoutSeconds` absent as
   * {@link DEFAULT_ATTEMPT_TIMEOUT_SECONDS}; `waitWorth` absent as {@link DEFAULT_WAIT_WORTH_PER_MINUTE}.
   */
  routing: {
    explore: number;
    requireEvidence: boolean;
    tradeoff: Tradeoff;
    explorePaid?: boolean;
    exploreMeasured?: number;
    attemptTimeoutSeconds?: number;
    promptSignal?: boolean;
    /** USD a minute of the user's wait is worth; absent: {@link DEFAULT_WAIT_WORTH_PER_MINUTE} (see {@link waitWorthPerMinute}). */
    waitWorth?: number;
  };
  providers: Record<string, ProviderConfig>;
}

/** How long one attempt may take under this panel, ms (`routing.attemptTimeoutSeconds`, else {@link DEFAULT_ATTEMPT_TIMEOUT_SECONDS}). */
export function attemptTimeoutMs(panel: Pick<Panel, 'routing'>): number {
  return (panel.routing.attemptTimeoutSeconds ?? DEFAULT_ATTEMPT_TIMEOUT_SECONDS) * 1000;
}

/** What a minute of the user's wait is worth under this panel, USD (`routing.waitWorth`, else {@link DEFAULT_WAIT_WORTH_PER_MINUTE}). */
export function waitWorthPerMinute(panel: Pick<Panel, 'routing'>): number {
  return panel.routing.waitWorth ?? DEFAULT_WAIT_WORTH_PER_MINUTE;
}

/** Exploration rate when the panel does not set one: a small price for evidence on rungs the greedy order skips. */
export const DEFAULT_EXPLORE_RATE = 0.05;

/** A panel that failed validation; `issues` are one line each, every one naming its field. */
export class PanelError extends Error {
  constructor(
    readonly source: string,
    readonly issues: string[],
  ) {
    super(`${source}: invalid panel\n${issues.map((issue) => `  - ${issue}`).join('\n')}`);
    this.name = 'PanelError';
  }
}

/**
 * Parses panel text (JSON) from `source` (a path or a setting name, for the message). `env` decides the
 * default providers' addresses (`OLLAMA_HOST`): the caller's environment, not necessarily this process's.
 */
export function parsePanelText(text: string, source: string, env: Environment = {}): Panel {
  let json: unknown;
  try {
    json = parseJsonText(text);
  } catch (error) {
    throw new PanelError(source, [`not valid JSON: ${(error as Error).message}`]);
  }
  return parsePanel(json, source, env, text);
}

/**
 * Validates a panel object and fills in its defaults. With `text`, the file the object was read from,
 * each issue also says where it is in that file (line and column).
 */
export function parsePanel(json: unknown, source: string, env: Environment = {}, text?: string): Panel {
  const oversized = oversizedMaps(json);
  if (oversized.length) throw new PanelError(source, locatePanelIssues(oversized, text));
  const parsed = panelSchema.safeParse(json);
  // Names are checked on what was written, not on what zod kept: zod drops a `__proto__` key of a record
  // without a word, and the model naming that provider then found Object.prototype under it.
  const unsafe = nameProblems(json);
  if (!parsed.success || unsafe.length) {
    const described = parsed.success ? { lines: [], more: 0 } : boundedPanelIssues(parsed.error.issues, panelSchema, json, text);
    const named = unsafe.slice(0, Math.max(0, MAX_PANEL_ISSUES - described.lines.length));
    throw new PanelError(source, withMore([...described.lines, ...named], described.more + unsafe.length - named.length));
  }
  const file = parsed.data;
  const issues: string[] = [];
  const seen = new Set<string>();
  file.models.forEach((model, index) => {
    if (seen.has(model.slug)) issues.push(`models[${index}].slug: "${model.slug}" is listed twice`);
    seen.add(model.slug);
  });
  const providers = { ...defaultProviders(env), ...(file.providers ?? {}) };
  file.models.forEach((model, index) => {
    if (!Object.hasOwn(providers, model.provider)) {
      issues.push(`models[${index}].provider: unknown provider "${model.provider}" (declare it under "providers")`);
    }
  });
  if (issues.length) throw new PanelError(source, locatePanelIssues(issues, text));
  return {
    models: file.models,
    maxOutputPrice: file.maxOutputPrice ?? null,
    diversity: {
      maxConsecutivePerProvider: file.diversity?.maxConsecutivePerProvider ?? null,
      maxTotalPerProvider: file.diversity?.maxTotalPerProvider ?? null,
    },
    profiles: file.profiles ?? {},
    routing: {
      explore: file.routing?.explore ?? DEFAULT_EXPLORE_RATE,
      requireEvidence: file.routing?.requireEvidence ?? false,
      tradeoff: file.routing?.tradeoff ?? 'quality',
      explorePaid: file.routing?.explorePaid ?? false,
      ...(file.routing?.exploreMeasured ? { exploreMeasured: file.routing.exploreMeasured } : {}),
      ...(file.routing?.attemptTimeoutSeconds !== undefined ? { attemptTimeoutSeconds: file.routing.attemptTimeoutSeconds } : {}),
      ...(file.routing?.promptSignal ? { promptSignal: true } : {}),
      ...(file.routing?.waitWorth !== undefined ? { waitWorth: file.routing.waitWorth } : {}),
    },
    providers,
  };
}

/**
 * The providers every panel may name without declaring them.
 *
 * @remarks
 * `ollama` honours `OLLAMA_HOST` the way the Ollama CLI does, so a user who moved their server does
 * not have to say so twice.
 */
export function defaultProviders(env: Environment = {}): Record<string, ProviderConfig> {
  return {
    ollama: { kind: 'ollama', baseUrl: ollamaBaseUrl(env.OLLAMA_HOST) },
    openrouter: { kind: 'openai-compatible', baseUrl: 'https://openrouter.ai/api/v1' },
    openai: { kind: 'openai-compatible', baseUrl: 'https://api.openai.com/v1' },
  };
}

function ollamaBaseUrl(host: string | undefined): string {
  if (!host) return 'http://127.0.0.1:11434';
  const withScheme = /^https?:\/\//.test(host) ? host : `http://${host}`;
  let url: URL;
  try {
    url = new URL(withScheme);
  } catch {
    throw new PanelError('OLLAMA_HOST', [`"${host}" is not a host, host:port or URL`]);
  }
  if (!url.port && !/:\d+$/.test(host)) url.port = '11434';
  return url.toString().replace(/\/$/, '');
}

/**
 * The characters a model slug may hold: letters, digits and `. _ : / @ + ~ -`.
 *
 * @remarks
 * Every real name seen fits: Ollama's `qwen2.5:3b` and `hf.co/bartowski/Llama-3.2-1B-Instruct-GGUF:Q4_K_M`,
 * OpenRouter's `openai/gpt-4o-mini`, `deepseek/deepseek-r1-distill-qwen-32b:free` and floating aliases
 * (`~anthropic/claude-latest`), vLLM's `Qwen/Qwen2.5-7B-Instruct`, llama.cpp's file paths
 * (`/models/qwen2.5-7b-q4_k_m.gguf`), an editor model's `copilot/gpt-4o`, Bedrock's
 * `anthropic.claude-3-5-sonnet-20240620-v1:0`. Anything else — a space, `$`, a quote, a newline, a
 * control character — is no model's name, and a slug is written into the decision log, the Rung log and
 * the terminal: a slug of `$(touch X)` once reached a shell start-up file through a symlinked log.
 */
const SLUG = /^[A-Za-z0-9._:/@+~-]+$/;
/**
 * The characters a provider name may hold: a letter or digit, then letters, digits, `-` and `_`.
 *
 * @remarks
 * A provider's name becomes part of an environment variable (`RUNG_<PROVIDER>_API_KEY`, `-` read as `_`)
 * and of a file name (`catalog-<provider>.json` in the catalog cache's folder), so it holds nothing a shell
 * or a path would read as more than a name: no `/`, no `.`, no space.
 */
const PROVIDER_NAME = /^[A-Za-z0-9][A-Za-z0-9_-]*$/;
/**
 * Names every JavaScript object already answers to (`constructor`, `__proto__`, `toString`, …) and
 * `prototype`: as a provider's name, `constructor` passed the "is it declared" check on a plain object
 * without being declared at all, and zod dropped a `__proto__` entry of `providers` silently.
 */
const RESERVED_NAMES = new Set([...Object.getOwnPropertyNames(Object.prototype), 'prototype']);

/** Why a model's slug or a provider's name cannot be used, one line each with its path; empty when all can. */
function nameProblems(json: unknown): string[] {
  if (!isPlainRecord(json)) return [];
  const problems: string[] = [];
  if (isPlainRecord(json.providers)) {
    for (const name of Object.keys(json.providers)) {
      const problem = providerNameProblem(name);
      if (problem) problems.push(`providers: ${problem}`);
    }
  }
  if (Array.isArray(json.models)) {
    json.models.forEach((model: unknown, index) => {
      if (!isPlainRecord(model)) return;
      if (typeof model.slug === 'string' && model.slug !== '') {
        const problem = slugProblem(model.slug);
        if (problem) problems.push(`models[${index}].slug: ${problem}`);
      }
      if (typeof model.provider === 'string' && model.provider !== '') {
        const problem = providerNameProblem(model.provider);
        if (problem) problems.push(`models[${index}].provider: ${problem}`);
      }
    });
  }
  return problems;
}

/** Why `slug` is no model's name, or undefined when it may be one. */
export function slugProblem(slug: string): string | undefined {
  if (RESERVED_NAMES.has(slug)) return `${JSON.stringify(slug)} is a name every JavaScript object already has, not a model's`;
  // Checked before the characters: a slug is quoted in every message about it, and one of megabytes
  // would fill the toast, the log and every decision row that names it.
  if (slug.length > MAX_NAME_CHARS)
    return `is ${slug.length} characters long; a model's name may be at most ${MAX_NAME_CHARS} (the longest real ones are under 80)`;
  if (SLUG.test(slug)) return undefined;
  return `${JSON.stringify(slug)} has a character no model name has (${JSON.stringify(firstOutside(slug, SLUG))}); a slug holds letters, digits and . _ : / @ + ~ -`;
}

/** Why `name` cannot name a provider, or undefined when it can. */
export function providerNameProblem(name: string): string | undefined {
  if (RESERVED_NAMES.has(name))
    return `${JSON.stringify(name)} is a name every JavaScript object already has; choose another provider name`;
  if (PROVIDER_NAME.test(name)) return undefined;
  return `${JSON.stringify(name)} is not a provider name Rung accepts: use letters, digits, - and _, starting with a letter or digit (the name becomes part of RUNG_<PROVIDER>_API_KEY and of a file name)`;
}

/** The first character of `text` that `pattern` (a whole-string character class) does not allow. */
function firstOutside(text: string, pattern: RegExp): string {
  return [...text].find((character) => !pattern.test(character)) ?? text;
}

/**
 * The maps of a panel (`providers`, `profiles`) that list more than {@link MAX_PANEL_ENTRIES} entries:
 * zod reads every value of a record before any size check could run, so their size is read first.
 */
function oversizedMaps(json: unknown): string[] {
  if (!isPlainRecord(json)) return [];
  const problems: string[] = [];
  for (const name of ['providers', 'profiles'] as const) {
    const map = json[name];
    if (!isPlainRecord(map)) continue;
    let count = 0;
    for (const key in map) if (Object.hasOwn(map, key)) count++;
    if (count > MAX_PANEL_ENTRIES)
      problems.push(
        `${name}: lists ${count.toLocaleString('en-US')} entries; a panel lists at most ${MAX_PANEL_ENTRIES.toLocaleString('en-US')}`,
      );
  }
  return problems;
}

function isPlainRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The scheme of a URL (`file:`), or undefined when it does not parse. */
function schemeOf(url: string): string | undefined {
  try {
    return new URL(url).protocol;
  } catch {
    return undefined;
  }
}

/** The environment variable the CLI reads a provider's key from: `RUNG_<PROVIDER>_API_KEY`. */
export function apiKeyVariable(provider: string): string {
  return `RUNG_${provider.toUpperCase().replace(/-/g, '_')}_API_KEY`;
}

/** The caps in force for a class key: a profile value beats the global default; absent means unbounded. */
export function capsFor(panel: Panel, classKey: string): DiversityCaps {
  const profile = panel.profiles[classKey] ?? panel.profiles[classKey.split('/')[0] ?? classKey] ?? {};
  return {
    maxConsecutivePerProvider:
      profile.maxConsecutivePerProvider !== undefined ? profile.maxConsecutivePerProvider : panel.diversity.maxConsecutivePerProvider,
    maxTotalPerProvider: profile.maxTotalPerProvider !== undefined ? profile.maxTotalPerProvider : panel.diversity.maxTotalPerProvider,
  };
}
