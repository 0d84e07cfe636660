/**
 * The answer format a prompt asks for, read off its text: how likely a model that cannot answer it is
 * right anyway.
 *
 * @remarks
 * On a multiple-choice question a model that does not know picks one of k choices and is right about
 * 1/k of the time; on a yes-or-no question half the time. A rating that ignores that reads a guess as
 * ability: on data where one family was a two-way choice, two weak models were rated 0.95. The rating,
 * the call's difficulty and the planner's chances all take the floor into account where the prompt
 * shows one (the three-parameter model's lower asymptote, fixed by the format rather than fitted: a
 * floor learned from pass or fail alone cannot be told apart, in a cascade, from strong rungs that
 * answer hard calls, since a rung is only asked after the cheaper ones failed).
 */

/** The most choices read as a guessing floor: past this a guess is as good as none. */
export const MAX_CHOICES = 10;

/**
 * The chance of a right guess the prompt's format gives, 0 when it shows none: 1/k for k lettered (A,
 * B, …) or numbered choices, each opening a line; 1/2 for a question that asks for yes or no, or true
 * or false.
 */
export function guessingFloor(text: string): number {
  const choices = lineChoices(text);
  if (choices >= 2 && choices <= MAX_CHOICES) return 1 / choices;
  if (/\b(answer|reply|respond|output|say)\b[^.\n]{0,40}\b(yes or no|true or false|yes\/no|true\/false)\b/i.test(text)) return 0.5;
  return 0;
}

/** How many choices run A, B, C, … (or 1, 2, 3, …) in order at the starts of lines: `A:`, `A.`, `A)`, `(A)`. */
function lineChoices(text: string): number {
  let letters = 0;
  let numbers = 0;
  for (const line of text.split('\n')) {
    const match = /^\s*\(?([A-J]|[1-9]|10)[).:]\s+\S/.exec(line);
    if (!match) continue;
    const label = match[1] as string;
    if (/[A-J]/.test(label)) {
      if (label.charCodeAt(0) - 65 === letters) letters++;
    } else if (Number(label) === numbers + 1) numbers++;
  }
  return Math.max(letters, numbers);
}
