/**
 * The names Rung's models go by in the editor's model picker.
 *
 * @remarks
 * "Rung Auto" routes; every other Rung model is a panel model that opens the call, with the panel's
 * later rungs kept as fallbacks. Ids are the panel slugs themselves, so a `modelSelector` in a test
 * or a keybinding reads like the panel; Auto's id has a prefix no Ollama or OpenRouter slug uses.
 */

import { OUTPUT_TOKENS_BOUND } from '../../core/routing/spendLimits';

/** Output tokens Rung declares at most for a model: the editor uses it only to budget. */
const MAX_OUTPUT_TOKENS = OUTPUT_TOKENS_BOUND;

/**
 * A context window as the model picker is told it: the input and the output that share it.
 *
 * @remarks
 * The picker shows a model's "Max context" as its input and output limits added up: a panel context of
 * 32,768 declared whole as input, beside 8,192 of output, read "41K". The output takes its share of the
 * window (8,192 tokens, or a quarter of a small window), and the input the rest, so the picker says the
 * panel's own figure and the editor never sends more than the model holds.
 */
export function pickerLimits(context: number): { maxInputTokens: number; maxOutputTokens: number } {
  const maxOutputTokens = Math.min(MAX_OUTPUT_TOKENS, Math.floor(context / 4));
  return { maxInputTokens: context - maxOutputTokens, maxOutputTokens };
}

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
