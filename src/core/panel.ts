/**
 * The panel file: which models one workspace may use, and the knobs of the router.
 *
 * @remarks
 * One format everywhere — the `rung.panel` setting, `.rung/panel.json` and `rung --panel` — so a
 * panel that works in the terminal works in the editor. Unknown keys are errors that name themselves:
 * a misspelt `maxOutputPrise` silently ignored would be a price cap the user believes in and does not have.
 */
import * as z from 'zod';
import { parseJsonText } from './jsonText';
import { describePanelIssues, locatePanelIssues } from './panelIssues';

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
  error: () => 'must be "required" or "none"; the key itself never goes in the panel (Rung: Set Provider Key, or RUNG_<PROVIDER>_API_KEY for the CLI)',
});

const providerSchema = z.strictObject({
  kind: z.enum(['ollama', 'openai-compatible', 'vscode-lm', 'replay']),
  baseUrl: z.string().url().optional(),
  key: keySchema.optional(),
});

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
});

export const panelSchema = z.strictObject({
  models: z.array(modelSchema).min(1),
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
  /** `explorePaid` absent reads as false. */
  routing: { explore: number; requireEvidence: boolean; tradeoff: Tradeoff; explorePaid?: boolean; exploreMeasured?: number };
  providers: Record<string, ProviderConfig>;
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
  const parsed = panelSchema.safeParse(json);
  if (!parsed.success) {
    throw new PanelError(source, describePanelIssues(parsed.error.issues, panelSchema, json, text));
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
    if (!providers[model.provider]) {
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
    maxTotalPerProvider:
      profile.maxTotalPerProvider !== undefined ? profile.maxTotalPerProvider : panel.diversity.maxTotalPerProvider,
  };
}
