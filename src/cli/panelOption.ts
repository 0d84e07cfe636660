/**
 * The panel a `rung` command routes with: the file `--panel` names, else the one the extension would
 * find — the workspace's `.rung/panel.json` under the current folder, else the local Ollama's models.
 *
 * @remarks
 * The rule is the core's (panelDiscovery.ts), so the terminal and the editor find the same panel. Which
 * one was found is said on stderr, so a panel nobody named is never a surprise; when none is found the
 * usage error says where it looked.
 */
import type { Panel } from '../core/panel';
import { discoverWorkspacePanel, PanelNotFoundError } from '../core/panelDiscovery';
import { readPanelFile, UsageError, type CliIo } from './io';

/** `--panel`'s description, the same for every command that takes one. */
export const PANEL_FLAG_DESCRIPTION =
  'the panel: models, providers, prices and routing settings (JSON); without it, .rung/panel.json here, else the models of the local Ollama (OLLAMA_HOST, else 127.0.0.1:11434)';

/**
 * The panel for `command` (`rung chat`): `--panel`'s file when given, else the discovered one.
 *
 * @throws UsageError naming where it looked when nothing gave a panel; PanelError for a file that does not validate.
 */
export async function commandPanel(path: string | undefined, io: CliIo, command: string): Promise<Panel> {
  if (path !== undefined) return readPanelFile(path, io);
  try {
    const found = await discoverWorkspacePanel({
      cwd: io.cwd,
      env: io.env,
      ollama: { clock: io.clock, ...(io.signal ? { signal: io.signal } : {}) },
    });
    const models = found.from === 'ollama' ? `: ${found.panel.models.map((model) => model.slug).join(', ')}` : '';
    io.stderr(`${command}: panel from ${found.source}${models}\n`);
    for (const note of found.notes) io.stderr(`${command}: ${note}\n`);
    return found.panel;
  } catch (error) {
    if (!(error instanceof PanelNotFoundError)) throw error;
    throw new UsageError(`missing --panel FILE: there is no ${error.lookedFor.join(' or ')}, and ${error.ollama.reason}`);
  }
}
