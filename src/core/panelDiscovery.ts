/**
 * Where a panel comes from when nobody names one: the one the workspace configures, else the models of
 * the local Ollama; the same rule for the `rung` CLI and the extension.
 *
 * @remarks
 * The extension found its panel this way and the CLI did not: `rung chat hello` in a workspace with a
 * `.rung/panel.json`, or beside a running Ollama, said "missing --panel FILE". What "configured" means
 * is the front end's (the extension's settings and trust rules; the CLI's `.rung/panel.json` under the
 * current folder, where it keeps the ledger too), so it is passed in; the order, the Ollama look-up and
 * what is said when neither gives a panel are here.
 */
import { join } from 'node:path';
import { parseJsonText } from './jsonText';
import { defaultProviders, PanelError, parsePanel, type Environment, type Panel, type PanelFile } from './panel';
import { readPanelFileText } from './panelFileText';
import { ollamaPanel, type OllamaLookup } from './ollamaPanel';

/** The workspace's panel file under a folder, where `rung` and the extension both look. */
export const WORKSPACE_PANEL_FILE = join('.rung', 'panel.json');

/** A panel found, where from, and anything the user should know about it. */
export interface DiscoveredPanel {
  panel: Panel;
  /** Where it came from, for messages: a file, a setting, or `the models of the local Ollama at …`. */
  source: string;
  /** `configured` when the workspace gave it, `ollama` when it was built from the local Ollama's models. */
  from: 'configured' | 'ollama';
  /** Things to say that are not errors (an untrusted workspace's ignored providers). */
  notes: string[];
}

/** Neither the workspace nor a local Ollama gave a panel; says where it looked. */
export class PanelNotFoundError extends Error {
  override name = 'PanelNotFoundError';
  constructor(
    /** The places a configured panel was looked for (`rung.panel`, a file's path). */
    readonly lookedFor: readonly string[],
    /** The Ollama asked, and why it gave no panel, as a clause ("no local Ollama answered at …", "the Ollama at … holds no chat model"). */
    readonly ollama: { baseUrl: string; reason: string },
  ) {
    super(`no panel is configured (${lookedFor.join(' or ')}), and ${ollama.reason}`);
  }
}

export interface PanelDiscoveryOptions {
  /** The panel the workspace configures, or undefined when it configures none; throws `PanelError` for a bad one. */
  configured: () =>
    | { panel: Panel; source: string; notes?: string[] }
    | undefined
    | Promise<{ panel: Panel; source: string; notes?: string[] } | undefined>;
  /** Where `configured` looks, for the message when it found nothing. */
  lookedFor: readonly string[];
  /** The local Ollama to build a panel from when nothing is configured. */
  ollama: OllamaLookup;
  /** Validates the panel built from Ollama's models; the extension lays its settings over it. Default: as it is. */
  fromOllama?: (file: PanelFile, source: string) => Panel;
  env?: Environment;
  /** One line for each thing found or not found, for a log. */
  log?: (message: string) => void;
}

/** The configured panel, else one from the local Ollama's models; {@link PanelNotFoundError} when neither. */
export async function discoverPanel(options: PanelDiscoveryOptions): Promise<DiscoveredPanel> {
  const configured = await options.configured();
  if (configured) return { panel: configured.panel, source: configured.source, from: 'configured', notes: configured.notes ?? [] };
  const { baseUrl } = options.ollama;
  const found = await ollamaPanel(options.ollama);
  if (!found.found) {
    options.log?.(`no panel configured, and ${found.reason}`);
    throw new PanelNotFoundError(options.lookedFor, { baseUrl, reason: found.reason });
  }
  const source = `the models of the local Ollama at ${baseUrl}`;
  options.log?.(
    `built a panel from the Ollama at ${baseUrl}: ${found.panel.models.map((model) => model.slug).join(', ')}${found.leftOut.length > 0 ? `; left out ${found.leftOut.join('; ')}` : ''}`,
  );
  const panel = options.fromOllama ? options.fromOllama(found.panel, source) : parsePanel(found.panel, source, options.env ?? {});
  return { panel, source, from: 'ollama', notes: [] };
}

/**
 * The panel `rung` uses without `--panel`: the workspace's `.rung/panel.json` under `cwd`, else the
 * local Ollama's models (`OLLAMA_HOST`, else 127.0.0.1:11434).
 *
 * @throws PanelError for a workspace file that does not parse or validate; {@link PanelNotFoundError}
 * when there is no file and no Ollama gave a panel.
 */
export function discoverWorkspacePanel(options: {
  cwd: string;
  env: Environment;
  ollama: Omit<OllamaLookup, 'baseUrl'>;
  log?: (message: string) => void;
}): Promise<DiscoveredPanel> {
  const path = join(options.cwd, WORKSPACE_PANEL_FILE);
  const baseUrl = defaultProviders(options.env).ollama?.baseUrl ?? 'http://127.0.0.1:11434';
  return discoverPanel({
    configured: () => {
      // Not through a link, not from a pipe or a device, not past the size a panel has (panelFileText.ts).
      const text = readPanelFileText(path);
      if (text === undefined) return undefined;
      let json: unknown;
      try {
        json = parseJsonText(text);
      } catch (error) {
        throw new PanelError(path, [`not valid JSON: ${(error as Error).message}`]);
      }
      const notes: string[] = [];
      const kept = withoutFileProviders(json, notes, `${path} was found, not named`, 'name it with --panel to use them');
      return { panel: parsePanel(kept, path, options.env, kept === json ? text : undefined), source: path, notes };
    },
    lookedFor: [path],
    ollama: { ...options.ollama, baseUrl },
    env: options.env,
    ...(options.log ? { log: options.log } : {}),
  });
}

/** The providers every panel may name without declaring them (defaultProviders). */
export const BUILT_IN_PROVIDERS: ReadonlySet<string> = new Set(Object.keys(defaultProviders()));

/**
 * A panel file's object without the providers it declares, and without the models on them; the panel
 * as it is when it declares none. A note says what was left out, `why`, and `instead`.
 *
 * @remarks
 * A file in a folder someone else made (a cloned repository) must not choose where the user's keys go:
 * declaring `openrouter` with its own `baseUrl` sent the key from `RUNG_OPENROUTER_API_KEY` to that
 * server with the first call. Models on the built-in providers, at their built-in addresses, are kept, so
 * the local models still work; a provider the user trusts is named by the user (a setting, `--panel`).
 */
export function withoutFileProviders(json: unknown, notes: string[], why: string, instead: string): unknown {
  if (!isRecord(json) || !isRecord(json.providers) || Object.keys(json.providers).length === 0) return json;
  const declared = new Set(Object.keys(json.providers));
  const { providers: _ignored, ...rest } = json;
  const models = Array.isArray(rest.models) ? rest.models : [];
  const kept = models.filter(
    (model) =>
      !(isRecord(model) && typeof model.provider === 'string' && declared.has(model.provider) && !BUILT_IN_PROVIDERS.has(model.provider)),
  );
  const left = models.length - kept.length;
  notes.push(
    `${why}: its providers (${[...declared].join(', ')}) are ignored${left > 0 ? `, and ${left} model(s) on them left out` : ''}; ${instead}`,
  );
  return { ...rest, models: kept };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
