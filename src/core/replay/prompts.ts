/**
 * Prompts for the replay: each recorded prompt's text by its id, read as features for the per-prompt
 * signal (`rung replay --prompts F`).
 *
 * @remarks
 * Kept apart from the outcomes because the text is often not ours to copy: the recorded benchmark's
 * prompts come from a public repository without a licence and are rebuilt outside this one
 * (`scripts/prompts.mjs`). One JSON line per prompt, `{"id": …, "prompt": …}`, with an optional
 * `system` (sent before the prompt, so read with it), `tools` (their names) and `attachments` (how many).
 * Validated loosely, like the outcomes: extra fields are ignored.
 */
import * as z from 'zod';
import { describePanelIssues } from '../panelIssues';
import type { PromptText } from '../signal/promptFeatures';
import { OutcomesError } from './outcomes';

const promptRowSchema = z.looseObject({
  id: z.string().min(1),
  prompt: z.string(),
  system: z.string().optional(),
  tools: z.array(z.string()).optional(),
  attachments: z.number().int().min(0).optional(),
});

/** Parses JSON-lines prompts into text by prompt id; a line that is not a prompt row is an error naming it. */
export function parsePrompts(text: string, source: string): Map<string, PromptText> {
  const prompts = new Map<string, PromptText>();
  const lines = (text.charCodeAt(0) === 0xfeff ? text.slice(1) : text).split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] as string;
    if (!line.trim()) continue;
    let json: unknown;
    try {
      json = JSON.parse(line);
    } catch (error) {
      throw new OutcomesError(source, i + 1, `not valid JSON (${(error as Error).message})`);
    }
    const parsed = promptRowSchema.safeParse(json);
    if (!parsed.success) {
      const said = describePanelIssues(parsed.error.issues.slice(0, 1), promptRowSchema, json)[0] ?? 'not a prompts row';
      throw new OutcomesError(source, i + 1, `${said} (a prompts row is {"id": …, "prompt": …})`);
    }
    const row = parsed.data;
    if (prompts.has(row.id)) throw new OutcomesError(source, i + 1, `prompt id "${row.id}" appears twice`);
    prompts.set(row.id, {
      text: row.system === undefined ? row.prompt : `${row.system}\n\n${row.prompt}`,
      ...(row.tools ? { tools: row.tools } : {}),
      ...(row.attachments !== undefined ? { attachments: row.attachments } : {}),
    });
  }
  return prompts;
}
