/**
 * The names Rung's models go by in the editor's model picker.
 *
 * @remarks
 * "Rung Auto" routes; every other Rung model is a panel model that opens the call, with the panel's
 * later rungs kept as fallbacks. Ids are the panel slugs themselves, so a `modelSelector` in a test
 * or a keybinding reads like the panel; Auto's id has a prefix no Ollama or OpenRouter slug uses.
 */

/** The vendor Rung registers its models under (`contributes.languageModelChatProviders`). */
export const RUNG_VENDOR = 'rung';

/** The id of "Rung Auto". */
export const AUTO_MODEL_ID = 'rung-auto';

/** The panel model an editor model id opens with, or undefined for Auto. */
export function pinnedForModelId(id: string): string | undefined {
  return id === AUTO_MODEL_ID ? undefined : id;
}

/** Characters per token for the estimate Rung answers token counts with (the usual English average). */
export const CHARS_PER_TOKEN = 4;

/** A token count estimate for text: VS Code asks for one to budget its prompts, and no tokenizer is shared by every rung. */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / CHARS_PER_TOKEN);
}
