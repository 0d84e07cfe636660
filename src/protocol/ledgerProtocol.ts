/**
 * The ledger view's protocol: every message the extension host and the webview send each other.
 *
 * @remarks
 * One module for both directions, so a field renamed on one side is a type error on the other. Each
 * side parses what it receives with {@link parseHostMessage} or {@link parseViewMessage} and acts only
 * on a message that parsed: a webview is a page that any script inside it could drive, and a host
 * message of the wrong shape (an older host after an update, a bug) must not half-render. The exchange
 * is: the webview says `ready` (with the filters it restored), the host answers with a whole
 * `snapshot`, then sends deltas (`decision-added`, `ratings-changed`, `spend-changed`, `panel-changed`).
 * `estimate-openers` is answered by `opener-estimates`, on request only: it reads the whole log.
 * Decisions travel a page at a time: a log holds up to 100k rows (the decision log's retention) and
 * the view asks for the rows it shows, never for all of them. Offsets count rows, but the host
 * moves a page's ends to fall between calls (core/store/callPage.ts), so a page may hold fewer rows
 * than asked and start before the offset asked for; the page's own `offset` says where it starts. A
 * verdict settled later is counted with its call, where the call was routed, not where it was written.
 *
 * This module must stay importable by the browser bundle: it imports zod's `zod/mini` build and nothing
 * else. Mini, imported as a namespace, because the page ships what it imports: the webview bundle was
 * 462 KB minified with `import { z } from 'zod'` (every locale came along), 93 KB with the full build
 * imported as a namespace, and 24 KB of it is zod with mini (esbuild, measured on these schemas).
 */
import * as z from 'zod/mini';

/** The verdict words of `src/core/verdict.ts`, repeated because the webview may not import the core. */
export const VERDICT_NAMES = ['pass', 'fail', 'unverified', 'provider-error', 'stopped', 'interrupted', 'refused'] as const;
export type VerdictName = (typeof VERDICT_NAMES)[number];

/** The most decision rows one page may carry: a screenful many times over, far short of a whole log. */
export const MAX_PAGE_ROWS = 500;
/** Rows the ledger view asks for when it opens: enough for about a screen of routed calls with their escalations. */
export const DEFAULT_PAGE_ROWS = 50;

/**
 * The most characters a reason or a notice may have on the wire.
 *
 * @remarks
 * A message is one `postMessage`, cloned whole into the page and parsed there; a reason longer than this
 * is read by nobody in a panel. The host cuts every text to it before posting (a row from an older Rung,
 * another tool or a team member may hold a longer one), so the page never has to drop a message for it.
 */
export const WIRE_TEXT_CHARS = 10_000;
/** The most characters a model's, a provider's or a class's name may have on the wire; cut by the host as texts are. */
export const WIRE_NAME_CHARS = 500;

const text = z.string().check(z.maxLength(WIRE_TEXT_CHARS));
const slug = z.string().check(z.minLength(1), z.maxLength(WIRE_NAME_CHARS));
/** USD; zod's numbers refuse Infinity and NaN. */
const usd = z.number();
const name = z.string().check(z.maxLength(WIRE_NAME_CHARS));
const count = z.int().check(z.minimum(0));
const pageLimit = z.int().check(z.minimum(1), z.maximum(MAX_PAGE_ROWS));

export const decisionFilterSchema = z.object({
  classKey: z.optional(slug),
  model: z.optional(slug),
  verdict: z.optional(z.enum(VERDICT_NAMES)),
});
export type DecisionFilterWire = z.infer<typeof decisionFilterSchema>;

export const prunedSchema = z.object({ model: slug, reason: text });

/** One decision row as the ledger view reads it: the fields it shows, nothing the webview does not use. */
export const decisionSchema = z.object({
  at: z.number(),
  call: slug,
  /** The call's class key with its shape (`edit/typescript`): the key ratings and filters use. */
  classKey: name,
  candidates: z.array(slug),
  rung: z.int(),
  escalation: z.array(slug),
  /** Empty only on a `refused` row: a call no rung could take names no model. */
  model: name,
  resolved: z.nullable(name),
  explore: z.boolean(),
  propensity: z.number().check(z.minimum(0), z.maximum(1)),
  verdict: z.enum(VERDICT_NAMES),
  verdictReason: z.nullable(text),
  inputTokens: z.nullable(z.number()),
  outputTokens: z.nullable(z.number()),
  cost: z.nullable(usd),
  latencyMs: z.nullable(z.number()),
  reason: text,
  mode: z.enum(['local', 'cloud']),
  pruned: z.array(prunedSchema),
  final: z.boolean(),
  /** `replay` for a row `rung replay` wrote (its `at` is the replay's simulated clock); absent for a routed call. */
  source: z.optional(name),
  /** The policy a replay ran (`open=qwen3:14b`). */
  policy: z.optional(name),
});
export type DecisionWire = z.infer<typeof decisionSchema>;

export const ratingSchema = z.object({
  model: slug,
  classKey: name,
  rating: z.number(),
  ability: z.number().check(z.minimum(0), z.maximum(1)),
  uncertainty: z.nullable(z.number().check(z.minimum(0))),
  graded: count,
  ok: count,
  measured: z.boolean(),
  /** Graded observations before a rating overrides its prior: the core's gate, sent rather than repeated. */
  gate: count.check(z.minimum(1)),
  updatedAt: z.number(),
  /** How long the model's answers at the class took on this machine; absent before any was timed. */
  timing: z.optional(
    z.object({
      attempts: count,
      meanMs: z.number().check(z.minimum(0)),
      firstTokenMs: z.optional(z.number().check(z.minimum(0))),
      tokensPerSecond: z.optional(z.number().check(z.minimum(0))),
    }),
  ),
});
export type RatingWire = z.infer<typeof ratingSchema>;

export const spendSchema = z.object({
  byDay: z.array(
    z.object({
      day: z.string().check(z.regex(/^\d{4}-\d{2}-\d{2}$/)),
      model: slug,
      provider: slug,
      cost: usd,
      calls: count,
    }),
  ),
  total: usd,
  today: usd,
  strongestModel: z.nullable(slug),
  strongestEstimate: z.nullable(usd),
  /** USD of `total` that paid for tool schemas sent as input; absent from a host before it was counted. */
  toolSchemas: z.optional(usd),
});
export type SpendWire = z.infer<typeof spendSchema>;

/** A panel model as the ladder shows it: its provider and list price. */
export const modelSchema = z.object({
  slug,
  provider: slug,
  role: z.nullable(z.enum(['base', 'mid', 'top'])),
  /** Served by a local provider (Ollama): no per-token price. */
  local: z.boolean(),
  /** USD per million tokens; null when the panel gives no price. */
  price: z.nullable(z.object({ input: usd, output: usd })),
});
export type ModelWire = z.infer<typeof modelSchema>;

export const providerSchema = z.object({ name: slug, healthy: z.boolean(), reason: z.optional(text) });
export type ProviderWire = z.infer<typeof providerSchema>;

/**
 * One provider's state in a line: its name, and why it is down when it is (the ledger view's
 * header, the status bar's tooltip).
 *
 * @remarks
 * A provider's own reason often names it already (`cloud: no API key`, the form the decision log
 * needs), so the name is not said twice.
 */
export function providerStatus(provider: ProviderWire): string {
  if (provider.healthy) return provider.name;
  const reason = provider.reason ?? 'unavailable';
  return reason.startsWith(`${provider.name}: `) ? reason : `${provider.name}: ${reason}`;
}

export const decisionPageSchema = z.object({
  rows: z.array(decisionSchema).check(z.maxLength(MAX_PAGE_ROWS)),
  /** Rows in the whole log that match the filter. */
  total: count,
  offset: count,
  filter: decisionFilterSchema,
});
export type DecisionPageWire = z.infer<typeof decisionPageSchema>;

/** Why the log cannot say what opening with a model would have done (the session's `OpenerRefusal`). */
export const OPENER_REFUSALS = ['no-calls', 'not-a-candidate', 'too-few'] as const;
export type OpenerRefusalWire = (typeof OPENER_REFUSALS)[number];

/**
 * What always opening with one model would have done on the user's logged calls, against how they
 * were routed: cost as a relative change, first-try success as a change in rate, each with 95% bounds.
 */
export const openerEstimateSchema = z.object({
  model: slug,
  calls: count,
  versusLog: z.nullable(
    z.object({
      loggedCost: usd,
      loggedSuccess: z.number(),
      costChange: z.number(),
      costChangeLow: z.number(),
      costChangeHigh: z.number(),
      successChange: z.number(),
      successChangeLow: z.number(),
      successChangeHigh: z.number(),
    }),
  ),
  /** Null exactly when `versusLog` holds the numbers. */
  refused: z.nullable(z.enum(OPENER_REFUSALS)),
  /** Present when only the most recent calls were read: how many calls the log holds. */
  logCalls: z.optional(count),
});
export type OpenerEstimateWire = z.infer<typeof openerEstimateSchema>;

/** Everything the host sends the webview. */
export const hostMessageSchema = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('snapshot'),
    models: z.array(modelSchema),
    ratings: z.array(ratingSchema),
    decisions: decisionPageSchema,
    spend: spendSchema,
    providers: z.array(providerSchema),
    ledgerPath: z.nullable(z.string()),
  }),
  z.object({ type: z.literal('page'), decisions: decisionPageSchema }),
  /**
   * A row just written, and where it goes in the list `filter` shows (the page's filter when the host
   * placed it): its call's rows start at `offset` (null when the filter does not show it), and the
   * list gained `added` rows, more than one when the row brought its whole call in under a verdict.
   */
  z.object({
    type: z.literal('decision-added'),
    row: decisionSchema,
    filter: decisionFilterSchema,
    offset: z.nullable(count),
    added: count,
  }),
  z.object({ type: z.literal('ratings-changed'), ratings: z.array(ratingSchema) }),
  z.object({ type: z.literal('spend-changed'), spend: spendSchema }),
  z.object({ type: z.literal('panel-changed'), models: z.array(modelSchema), providers: z.array(providerSchema) }),
  z.object({ type: z.literal('notice'), level: z.enum(['info', 'warning', 'error']), message: text }),
  /** The answer to `estimate-openers`: one estimate per panel model. */
  z.object({ type: z.literal('opener-estimates'), estimates: z.array(openerEstimateSchema).check(z.maxLength(1_000)) }),
]);
export type HostMessage = z.infer<typeof hostMessageSchema>;

/** Everything the webview sends the host. */
export const viewMessageSchema = z.discriminatedUnion('type', [
  /** The page has loaded (or reloaded) and shows this filter and page: send a snapshot. */
  z.object({
    type: z.literal('ready'),
    filter: decisionFilterSchema,
    offset: count,
    limit: pageLimit,
  }),
  z.object({
    type: z.literal('page'),
    filter: decisionFilterSchema,
    offset: count,
    limit: pageLimit,
    /** "Newer": the page that ends just before this row (where the page on screen starts); `offset` is then not read. */
    before: z.optional(count),
  }),
  z.object({ type: z.literal('pin'), model: slug }),
  z.object({ type: z.literal('avoid'), model: slug }),
  z.object({ type: z.literal('reset-class'), classKey: slug }),
  z.object({ type: z.literal('export') }),
  /** "What if I had opened with…": asked only when the user presses the button, since it reads the whole log. */
  z.object({ type: z.literal('estimate-openers') }),
  /**
   * The page could not take a message the host sent (it did not parse): the host writes it in the Rung
   * log, where a user looks, since the page's own console is out of sight.
   */
  z.object({ type: z.literal('rejected'), message: z.string().check(z.maxLength(40)), error: text }),
]);
export type ViewMessage = z.infer<typeof viewMessageSchema>;

/**
 * What the webview keeps across a reload (`vscode.setState`): its filters and page.
 *
 * @remarks
 * Parsed like a message because it is one, from an earlier version of the page: a state saved by an
 * older panel must fall back to the defaults, not break the first render.
 */
export const viewStateSchema = z.object({
  filter: decisionFilterSchema,
  offset: count,
  limit: pageLimit,
});
export type ViewState = z.infer<typeof viewStateSchema>;

export const DEFAULT_VIEW_STATE: ViewState = { filter: {}, offset: 0, limit: DEFAULT_PAGE_ROWS };

/** A saved state, or the defaults when there is none or it no longer parses. */
export function parseViewState(data: unknown): ViewState {
  const parsed = viewStateSchema.safeParse(data);
  return parsed.success ? parsed.data : { ...DEFAULT_VIEW_STATE, filter: {} };
}

/** A message that did not parse: what the receiver logs instead of acting. */
export interface RejectedMessage {
  ok: false;
  /** One line naming what was wrong, for the log. */
  error: string;
}

export type Parsed<T> = { ok: true; message: T } | RejectedMessage;

/** Parses what the webview received from the host. */
export function parseHostMessage(data: unknown): Parsed<HostMessage> {
  return parseWith(hostMessageSchema, data);
}

/** Parses what the host received from the webview. */
export function parseViewMessage(data: unknown): Parsed<ViewMessage> {
  return parseWith(viewMessageSchema, data);
}

function parseWith<T>(schema: z.ZodMiniType<T>, data: unknown): Parsed<T> {
  const parsed = schema.safeParse(data);
  if (parsed.success) return { ok: true, message: parsed.data };
  const type = messageType(data);
  const issues = parsed.error.issues
    .slice(0, 3)
    .map((issue) => `${issue.path.join('.') || '(message)'}: ${issue.code}`)
    .join('; ');
  return { ok: false, error: `dropped a malformed '${type}' message: ${issues}` };
}

/** The `type` of a message that may not have parsed, at most 40 characters, or what JavaScript type it was. */
export function messageType(data: unknown): string {
  return typeof data === 'object' && data !== null && 'type' in data ? String((data as { type: unknown }).type).slice(0, 40) : typeof data;
}

/**
 * Fails to compile when a switch over a message union misses a member.
 *
 * @remarks
 * Called in each `default:` branch, so a message type added here is a type error in every receiver
 * until it is handled there.
 */
export function unhandled(message: never): never {
  throw new Error(`unhandled message ${JSON.stringify(message)}`);
}
