/**
 * Which of a chat request's references `@rung` puts in the prompt: what the user attached, not what
 * the editor adds for its own agent.
 *
 * @remarks
 * VS Code 1.139 hands every participant, besides the files and selections the user attached, the
 * context it builds for its own agent: an index of the user's skills and agents (`<skills>…</skills>`,
 * about 4 KB with absolute paths into the editor's install, id `vscode.customizations.index`) and the
 * instruction files it found (`vscode.instructions.file.root`, `…reference`). `@rung` pasted them into
 * every prompt, to the paid model as well, though they name tools only the editor's agent has. The rule:
 * a reference whose id is in the editor's own `vscode.customizations.` or `vscode.instructions.`
 * families is left out; every other reference (a `#file`, a selection, a symbol, another extension's
 * variable) is sent.
 */

/** The id families of the context VS Code builds for its own agent. */
const EDITOR_AGENT_ID_PREFIXES = ['vscode.customizations.', 'vscode.instructions.'];

/** Whether a reference is context the editor built for its own agent rather than something the user attached. */
export function isEditorAgentReference(reference: { id: string }): boolean {
  return EDITOR_AGENT_ID_PREFIXES.some((prefix) => reference.id.startsWith(prefix));
}
