/**
 * The line an answer opens with, before its first word streams: which model is asked, where it runs
 * and what it costs, and what will check its answer — `Asking qwen2.5-coder:1.5b (local, free) —
 * checked by: JSON`.
 *
 * @remarks
 * What users of automatic model choice ask for most, in the issue trackers of the editors that have it:
 * to know which model is answering, and whether anything checks it, while the answer arrives, not
 * from a line at its end. Plain text, no Markdown: Rung Auto's text reaches the Chat view and inline
 * chat as the model's own. Taken off an earlier answer the editor sends back ({@link withoutAskingLine}),
 * as the short line at the end is, so the next model reads the answer and not Rung's words.
 *
 * No vscode here, so the wording is unit-tested.
 */

/** What the line says of one attempt: the session's `rung-started` event, in the terms it needs. */
export interface AskedRung {
  model: string;
  local: boolean;
  /** USD per million tokens, as the router prices the model; null when nobody knows it. */
  price: { input: number; output: number } | null;
  /** The checks that will judge the answer, in words; empty when none will. */
  checks: readonly string[];
}

/** `Asking tiny-coder:1b (local, free) — checked by: JSON`, or `… — no check applies`. */
export function askingLine(rung: AskedRung): string {
  const checks = rung.checks.length > 0 ? `checked by: ${[...new Set(rung.checks)].join(', ')}` : 'no check applies';
  return `Asking ${rung.model} (${whereAndPrice(rung)}) — ${checks}`;
}

/** Where the model runs and what it costs: `local, free`, `cloud, $1 in / $2 out per M tokens`, `cloud, price unknown`. */
function whereAndPrice(rung: AskedRung): string {
  const where = rung.local ? 'local' : 'cloud';
  if (!rung.price) return `${where}, price unknown`;
  if (rung.price.input === 0 && rung.price.output === 0) return `${where}, free`;
  return `${where}, $${rung.price.input} in / $${rung.price.output} out per M tokens`;
}

/** The asking line as it opens an answer, in any wording it has had. */
const ASKING_LINE = /^Asking \S.* \((?:local|cloud), [^)]*\) — (?:checked by: .+|no check applies)$/;

/** An assistant message without the asking lines Rung put in it, for a conversation the editor sends back. */
export function withoutAskingLine(text: string): string {
  if (!text.includes('Asking ')) return text;
  const lines = text.split('\n');
  const kept = lines.filter((line) => !ASKING_LINE.test(line.trim()));
  if (kept.length === lines.length) return text;
  return kept.join('\n').replace(/^\s*\n/, '');
}
