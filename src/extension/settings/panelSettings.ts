/**
 * Turns Rung's settings into one validated panel: the panel itself (inline or a file) with the
 * individual settings laid over it.
 *
 * @remarks
 * Kept free of `vscode` so the rules — which source wins, which setting a bad value is blamed on, what
 * an untrusted workspace may supply — are tested without an editor. Validation is the core's own
 * panel schema: the setting and the file are one format, so one validator. A bad value is reported
 * under the name the user typed (`rung.routing.explore`), not the panel path it was copied to
 * (`routing.explore`), because the user cannot find the second one anywhere.
 */
import { parseJsonText } from '../../core/jsonText';
import { parsePanel, PanelError, type Environment, type Panel, type PanelFile } from '../../core/panel';
import { withoutFileProviders } from '../../core/panelDiscovery';

/** Settings laid over the panel; each absent (null in the settings) one leaves the panel's value. */
export interface PanelOverrides {
  explore?: number | null;
  explorePaid?: boolean | null;
  requireEvidence?: boolean | null;
  tradeoff?: string | null;
  attemptTimeoutSeconds?: number | null;
  waitWorth?: number | null;
  maxOutputPrice?: number | null;
  maxConsecutivePerProvider?: number | null;
  maxTotalPerProvider?: number | null;
}

/** What reading a setting needs: `vscode.WorkspaceConfiguration` has it, and so does a test's map. */
export interface SettingsReader {
  get<T>(section: string, defaultValue: T): T;
}

/** A reader that can also say which scope a value came from (`vscode.WorkspaceConfiguration.inspect`). */
export interface ScopedSettingsReader extends SettingsReader {
  inspect<T>(section: string): { globalValue?: T } | undefined;
}

/**
 * The settings a workspace nobody trusted may not give, by their full names: the panel and where it
 * is, where models are reached, the check command, the ledger's place and the team's, and everything
 * that decides what Rung may spend — the budget, the price cap, the routing, the diversity caps and
 * which tools an agent's request carries.
 *
 * @remarks
 * The same list is `capabilities.untrustedWorkspaces.restrictedConfigurations` in package.json (a test
 * holds the two equal), so VS Code ignores a workspace's values for them in Restricted Mode and says so
 * in its settings editor. {@link userSettingsOnly} reads them from the user's settings in code as well,
 * so the rule does not rest on one editor's handling of that list: a cloned folder's
 * `.vscode/settings.json` with `"rung.dailyBudget": 100000` or `"rung.maxOutputPrice": 1000` would
 * otherwise lift the user's own cap and budget.
 */
export const RESTRICTED_SETTINGS = [
  'rung.panel',
  'rung.panelFile',
  'rung.endpoints',
  'rung.ollamaHost',
  'rung.verifyCommand',
  'rung.verifyCommandEnv',
  'rung.ledgerPath',
  'rung.teamLedger.url',
  'rung.teamLedger.shareDecisions',
  'rung.dailyBudget',
  'rung.maxAnswerCost',
  'rung.maxOutputPrice',
  'rung.routing.explore',
  'rung.routing.explorePaid',
  'rung.routing.requireEvidence',
  'rung.routing.tradeoff',
  'rung.routing.attemptTimeoutSeconds',
  'rung.routing.waitWorth',
  'rung.diversity.maxConsecutivePerProvider',
  'rung.diversity.maxTotalPerProvider',
  'rung.confidenceCheck',
  'rung.agentTools',
] as const;

const RESTRICTED = new Set<string>(RESTRICTED_SETTINGS.map((name) => name.slice('rung.'.length)));

/**
 * Rung's settings (the `rung` section) as a workspace of this trust may give them: all of them when
 * trusted; else the {@link RESTRICTED_SETTINGS} from the user's settings only, the rest as usual.
 */
export function userSettingsOnly(config: ScopedSettingsReader, trusted: boolean): SettingsReader {
  if (trusted) return config;
  return {
    get<T>(section: string, defaultValue: T): T {
      if (!RESTRICTED.has(section)) return config.get(section, defaultValue);
      const value = config.inspect<T>(section)?.globalValue;
      return value === undefined ? defaultValue : value;
    },
  };
}

/**
 * The settings laid over the panel, read with null as "not set".
 *
 * @remarks
 * Each is read with a null default, so an explicit `false` or `0` in the settings overrides the panel's
 * value: `rung.routing.explorePaid: false` once read as "not set" (`false || null`) and left a panel's
 * `explorePaid: true` in force, though its description promises to turn paid exploration off.
 */
export function readOverrides(config: SettingsReader): PanelOverrides {
  return {
    explore: config.get<number | null>('routing.explore', null),
    explorePaid: config.get<boolean | null>('routing.explorePaid', null),
    requireEvidence: config.get<boolean | null>('routing.requireEvidence', null),
    tradeoff: config.get<string | null>('routing.tradeoff', null),
    attemptTimeoutSeconds: config.get<number | null>('routing.attemptTimeoutSeconds', null),
    waitWorth: config.get<number | null>('routing.waitWorth', null),
    maxOutputPrice: config.get<number | null>('maxOutputPrice', null),
    maxConsecutivePerProvider: config.get<number | null>('diversity.maxConsecutivePerProvider', null),
    maxTotalPerProvider: config.get<number | null>('diversity.maxTotalPerProvider', null),
  };
}

export interface PanelSources {
  /** `rung.panel`, when set. */
  inline: unknown;
  /** The panel file's text when it exists. */
  file: { path: string; text: string } | undefined;
  overrides: PanelOverrides;
  /** `rung.endpoints`: OpenAI-compatible providers by name. */
  endpoints: Record<string, unknown>;
  /** `rung.ollamaHost`. */
  ollamaHost: string | null | undefined;
  /** Whether the workspace is trusted: an untrusted one may not name endpoints in its panel file. */
  trusted: boolean;
  env: Environment;
}

export interface ComposedPanel {
  panel: Panel;
  /** Where the panel came from, for messages: `rung.panel` or the file's path. */
  source: string;
  /** Things the user should know that are not errors (an untrusted workspace's ignored providers). */
  notes: string[];
}

/** Which setting each overridable panel path came from, to blame a bad value on what the user typed. */
const SETTING_FOR_PATH: Record<string, string> = {
  'routing.explore': 'rung.routing.explore',
  'routing.explorePaid': 'rung.routing.explorePaid',
  'routing.requireEvidence': 'rung.routing.requireEvidence',
  'routing.tradeoff': 'rung.routing.tradeoff',
  'routing.attemptTimeoutSeconds': 'rung.routing.attemptTimeoutSeconds',
  'routing.waitWorth': 'rung.routing.waitWorth',
  maxOutputPrice: 'rung.maxOutputPrice',
  'diversity.maxConsecutivePerProvider': 'rung.diversity.maxConsecutivePerProvider',
  'diversity.maxTotalPerProvider': 'rung.diversity.maxTotalPerProvider',
};

/**
 * The panel the settings describe, or undefined when none is configured (no inline panel, no file):
 * the caller then looks for a local Ollama.
 *
 * @throws PanelError naming the setting or file at fault.
 */
export function composePanel(sources: PanelSources): ComposedPanel | undefined {
  const notes: string[] = [];
  let base: Record<string, unknown>;
  let source: string;
  // The file's text, so each mistake says where it is; not once models were taken out of it (their indices moved).
  let text: string | undefined;
  if (sources.inline !== null && sources.inline !== undefined) {
    if (!isRecord(sources.inline)) throw new PanelError('rung.panel', ['(top level): expected an object']);
    base = { ...sources.inline };
    source = 'rung.panel';
  } else if (sources.file) {
    source = sources.file.path;
    let json: unknown;
    try {
      json = parseJsonText(sources.file.text);
    } catch (error) {
      throw new PanelError(source, [`not valid JSON: ${(error as Error).message}`]);
    }
    if (!isRecord(json)) throw new PanelError(source, ['(top level): expected an object']);
    base = { ...json };
    text = sources.file.text;
    if (!sources.trusted && isRecord(base.providers) && Object.keys(base.providers).length > 0) {
      base = withoutFileProviders(base, notes, 'untrusted workspace', 'trust the workspace to use them') as Record<string, unknown>;
      text = undefined;
    }
    if (!sources.trusted) base = modelsOnly(base, notes);
  } else {
    return undefined;
  }
  const env: Environment = { ...sources.env };
  if (sources.ollamaHost) env.OLLAMA_HOST = sources.ollamaHost;
  const endpoints = endpointProviders(sources.endpoints);
  // The panel alone first, so a fault in it is blamed on it and not on a setting laid over it.
  const withEndpoints = { ...base, providers: { ...endpoints, ...(isRecord(base.providers) ? base.providers : {}) } };
  parseNaming(withEndpoints, source, env, text);
  const merged = overlay(withEndpoints, sources.overrides);
  try {
    return { panel: parsePanel(merged, source, env), source, notes };
  } catch (error) {
    if (!(error instanceof PanelError)) throw error;
    throw new PanelError('settings', error.issues.map(blameSetting));
  }
}

/** Validates with the core schema; an `OLLAMA_HOST` fault is blamed on the setting when the setting supplied it. */
function parseNaming(json: unknown, source: string, env: Environment, text: string | undefined): Panel {
  try {
    return parsePanel(json, source, env, text);
  } catch (error) {
    if (error instanceof PanelError && error.source === 'OLLAMA_HOST') throw new PanelError('rung.ollamaHost', error.issues);
    throw error;
  }
}

/** `rung.endpoints` as panel providers; a value that is not an http(s) URL is blamed on the setting. */
function endpointProviders(endpoints: Record<string, unknown>): Record<string, unknown> {
  const providers: Record<string, unknown> = {};
  const issues: string[] = [];
  for (const [name, baseUrl] of Object.entries(endpoints)) {
    if (typeof baseUrl !== 'string' || !/^https?:\/\/[^/]/.test(baseUrl) || !URL.canParse(baseUrl)) {
      issues.push(`${name}: ${JSON.stringify(baseUrl)} is not an http(s) URL`);
      continue;
    }
    providers[name] = { kind: 'openai-compatible', baseUrl };
  }
  if (issues.length) throw new PanelError('rung.endpoints', issues);
  return providers;
}

function overlay(panel: Record<string, unknown>, overrides: PanelOverrides): Record<string, unknown> {
  const routing: Record<string, unknown> = { ...(isRecord(panel.routing) ? panel.routing : {}) };
  setIfGiven(routing, 'explore', overrides.explore);
  setIfGiven(routing, 'requireEvidence', overrides.requireEvidence);
  setIfGiven(routing, 'tradeoff', overrides.tradeoff);
  setIfGiven(routing, 'explorePaid', overrides.explorePaid);
  setIfGiven(routing, 'attemptTimeoutSeconds', overrides.attemptTimeoutSeconds);
  setIfGiven(routing, 'waitWorth', overrides.waitWorth);
  const diversity: Record<string, unknown> = { ...(isRecord(panel.diversity) ? panel.diversity : {}) };
  setIfGiven(diversity, 'maxConsecutivePerProvider', overrides.maxConsecutivePerProvider);
  setIfGiven(diversity, 'maxTotalPerProvider', overrides.maxTotalPerProvider);
  const merged: Record<string, unknown> = { ...panel };
  if (Object.keys(routing).length) merged.routing = routing;
  if (Object.keys(diversity).length) merged.diversity = diversity;
  setIfGiven(merged, 'maxOutputPrice', overrides.maxOutputPrice);
  return merged;
}

function setIfGiven(target: Record<string, unknown>, key: string, value: unknown): void {
  if (value !== null && value !== undefined) target[key] = value;
}

/** The keys of a panel file beside `models`, which decide how Rung spends rather than which models it may use. */
const SPENDING_KEYS = ['maxOutputPrice', 'diversity', 'profiles', 'routing'] as const;

/**
 * An untrusted workspace's panel file keeps its models, without their prices, and nothing else.
 *
 * @remarks
 * The folder may say which models it would like; what they cost and what Rung may spend on them are the
 * user's. A file that said `price: {input: 0, output: 0}` on a model of the user's keyed provider made
 * a $450 call record $0, so the daily budget never stopped a paid model. Without the file's price a
 * model is priced from its provider's catalog, and the price cap, the budget, the routing and the
 * diversity caps (which can push calls off the local models onto paid ones) come from the user's
 * settings or the defaults. Each key ignored is said once, in the note.
 */
function modelsOnly(panel: Record<string, unknown>, notes: string[]): Record<string, unknown> {
  const models = Array.isArray(panel.models) ? panel.models : undefined;
  const priced = (models ?? []).filter((model): model is Record<string, unknown> => isRecord(model) && model.price !== undefined);
  const ignored = SPENDING_KEYS.filter((key) => panel[key] !== undefined);
  if (priced.length === 0 && ignored.length === 0) return panel;
  const kept: Record<string, unknown> = { ...panel };
  for (const key of ignored) delete kept[key];
  if (models) kept.models = models.map((model: unknown) => (isRecord(model) && model.price !== undefined ? withoutPrice(model) : model));
  const what = [
    ...(priced.length
      ? [`the price of ${priced.map((model) => (typeof model.slug === 'string' ? model.slug : '(a model)')).join(', ')}`]
      : []),
    ...ignored,
  ];
  const listed = what.length > 1 ? `${what.slice(0, -1).join(', ')} and ${what.at(-1) ?? ''}` : (what[0] ?? '');
  notes.push(
    `untrusted workspace: the panel file's models are used, but not ${listed}: prices come from the providers' catalogs, and the price cap, the daily budget, routing and diversity from your own settings`,
  );
  return kept;
}

function withoutPrice(model: Record<string, unknown>): Record<string, unknown> {
  const { price: _ignored, ...rest } = model;
  return rest;
}

/**
 * What Rung says about a panel that does not parse or validate: the log's warning (every issue on
 * its own line) and the toast's one paragraph, each a finished sentence followed by what Rung does
 * instead (`kept`: the source of the last good panel, when there is one; the same file as before
 * this edit, or another source, such as the local Ollama's models).
 */
export function describePanelError(error: PanelError, kept: string | undefined): { log: string; toast: string } {
  // The last good panel may be the same file as it was before this edit: naming the file again would read as if it were fine.
  const keeping =
    kept === undefined
      ? ''
      : kept === error.source
        ? ' Rung keeps using its last good version.'
        : ` Rung keeps using the last good panel (${kept}).`;
  return {
    log: `${sentence(error.message)}${keeping}`,
    toast: `Rung: ${error.source} is invalid: ${sentence(error.issues.join('; '))}${keeping}`,
  };
}

/** `text` ending in a full stop, without doubling one it has. */
function sentence(text: string): string {
  return /[.!?]$/.test(text) ? text : `${text}.`;
}

function blameSetting(issue: string): string {
  const colon = issue.indexOf(':');
  const path = colon < 0 ? issue : issue.slice(0, colon);
  const setting = SETTING_FOR_PATH[path];
  return setting ? `${setting}${issue.slice(colon)}` : issue;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export type { PanelFile };
