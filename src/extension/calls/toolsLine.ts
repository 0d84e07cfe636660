/**
 * What the Rung log and Explain Last Decision say of a call's tool schemas: how many were sent, their
 * share of the input, what that share cost, and the tools left out.
 *
 * @remarks
 * The schemas are the part of an agent's request nobody sees: Agent mode's 39 were 13,345 of the
 * 16,377 tokens (estimated) of its request "What is six times seven?", and a climb to a paid model cost
 * ten times what the same question cost through `@rung`, which sends none. Every tool left out is named, so a tool the model needed and did
 * not get can be found.
 */
import { toolsShareText, type ToolsSent } from '../../core/providers/tokens';
import { formatUsd } from '../../protocol/formatUsd';

/** How many dropped tools a line names before it only counts the rest. */
const DROPPED_NAMED = 12;

/** `39 tools ≈ 13k of 16k input tokens, $0.033 of the input; dropped 2 (rung.agentTools): github_repo, …`. */
export function toolsLogText(tools: ToolsSent & { cost?: number | null }): string {
  const cost = tools.cost === undefined ? '' : `, ${formatUsd(tools.cost)} of the input`;
  return `${toolsShareText(tools)}${cost}${droppedText(tools.dropped)}`;
}

function droppedText(dropped: readonly string[]): string {
  if (dropped.length === 0) return '';
  const named = dropped.slice(0, DROPPED_NAMED);
  const more = dropped.length - named.length;
  return `; dropped ${dropped.length} (rung.agentTools): ${named.join(', ')}${more > 0 ? ` and ${more} more` : ''}`;
}
