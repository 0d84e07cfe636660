/**
 * The steps of one agent turn, gathered across the calls the editor makes for it, so the line that
 * ends the turn says the turn: the models that answered its steps, what was checked, what it cost.
 *
 * @remarks
 * Agent mode asks Rung Auto once per step of a turn: an edit as a tool call, then, given the tool's
 * result, a summing up in words. Each call ended with its own short line, and the turn's visible line
 * was the last step's: "unchecked · $0 · Retry asks a stronger model" under a free local summary,
 * while the checked $0.056 edit by the cloud model sat folded in "Completed 3 steps". So each finished
 * call is kept as a step of its turn, and the step that ends the turn (an answer with no tool call)
 * carries the whole turn.
 *
 * A turn is known by the user's request it answers: a call whose request has not acted yet (no tool
 * call or result after it) starts a turn, and each later call on the same request joins it. The same
 * request asked again (the Chat view's Retry) has not acted, so it starts a turn of its own.
 *
 * No vscode here: the front ends hand over their finished calls, so each rule is unit-tested.
 */
import { checkedLine } from '../../core/session/session';
import type { AnsweredSummary } from './answerLine';
import { formatUsd } from '../describe';

/** One step of a turn: the call that answered it, as the short line reads it. */
export interface TurnStep {
  callId: string;
  /** The model whose answer stood. */
  model: string;
  /** The models that failed their check on this step before it. */
  failedBefore: string[];
  /** The checks that judged the answer that stood (`tool call`, `JSON`). */
  checks: readonly string[];
  /** USD over every attempt of the step. */
  cost: number;
  /** Whether the step's answer went unchecked with a stronger rung above it, so a Retry has somewhere to climb. */
  retryClimbs: boolean;
}

/** A turn of more than one step, as its closing line says it. */
export interface Turn {
  steps: readonly TurnStep[];
}

/** Turns remembered at most; the oldest is forgotten first. */
const REMEMBERED = 20;

export class AgentTurns {
  /** The turns under way, by the words of the request each answers. */
  private readonly turns = new Map<string, TurnStep[]>();

  /**
   * Keeps `summary` (and `checks`, those that judged its answer) as a step of the turn answering
   * `request`, and gives the turn when it now holds more than one step.
   */
  step(request: { words: string; acted: boolean }, summary: AnsweredSummary, checks: readonly string[]): Turn | undefined {
    const step: TurnStep = {
      callId: summary.callId,
      model: summary.model,
      failedBefore: summary.triedBefore.filter((attempt) => attempt.verdict.kind === 'fail').map((attempt) => attempt.model),
      checks,
      cost: summary.cost,
      retryClimbs: !summary.checked && summary.stronger,
    };
    const steps = request.acted ? (this.turns.get(request.words) ?? []) : [];
    steps.push(step);
    this.turns.delete(request.words);
    this.turns.set(request.words, steps);
    while (this.turns.size > REMEMBERED) this.turns.delete(this.turns.keys().next().value as string);
    return steps.length > 1 ? { steps: [...steps] } : undefined;
  }
}

/**
 * The short line that ends a turn of several steps: `Rung · this turn: 2 steps, by gpt-4o and
 * qwen3:14b; qwen3:14b failed its check once · checked: tool call, tool call arguments · $0.0005`.
 *
 * @remarks
 * The form of every short line (`Rung · … · checked: … · $…`), so the conversation sent back has it
 * taken off as any other. The checks are those that judged any step; the cost is every attempt of
 * every step. A Retry sends the turn's first request again, so the hint that it climbs is the first
 * step's.
 */
export function turnFooter(turn: Turn, options: { retryClimbs?: boolean } = {}): string {
  const models = [...new Set(turn.steps.map((step) => step.model))];
  const failures = new Map<string, number>();
  for (const model of turn.steps.flatMap((step) => step.failedBefore)) failures.set(model, (failures.get(model) ?? 0) + 1);
  const failed = [...failures].map(([model, times]) => `${model} failed its check ${times === 1 ? 'once' : `${times} times`}`);
  const checks = [...new Set(turn.steps.flatMap((step) => step.checks))];
  const cost = turn.steps.reduce((sum, step) => sum + step.cost, 0);
  const retry = options.retryClimbs && turn.steps[0]?.retryClimbs ? ' · Retry asks a stronger model' : '';
  const who = `this turn: ${turn.steps.length} steps, by ${joinWords(models)}${failed.length ? `; ${joinWords(failed)}` : ''}`;
  return `Rung · ${who} · ${checkedLine(checks)} · ${formatUsd(cost)}${retry}`;
}

/** `a`, `a and b`, `a, b and c`. */
function joinWords(words: readonly string[]): string {
  return words.length <= 1 ? (words[0] ?? '') : `${words.slice(0, -1).join(', ')} and ${words.at(-1)}`;
}
