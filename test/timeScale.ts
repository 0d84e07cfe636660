/**
 * How much longer the tests' limits are than on an idle machine: `RUNG_TEST_TIME_SCALE`, 1 unless set.
 *
 * @remarks
 * Every limit the test layers put on a wait (a vitest or mocha timeout, a Playwright `waitFor`, the test
 * host's per-check and per-suite ceilings, code-server's start) goes through {@link scaled}, so one
 * variable stretches them all on a slow or crowded machine. The limits only turn a hang into a readable
 * failure; the waits themselves are for a condition or an event, never for a guessed time, except where
 * a check must give something the chance *not* to happen (an editor that must not open), and those
 * windows are scaled too. The runner passes its environment to code-server and so to every extension
 * host, so one value reaches the extension-host suites as well. Read once, when a test module loads.
 */

/** The variable's name, for messages that tell a user to set it. */
export const TIME_SCALE_VARIABLE = 'RUNG_TEST_TIME_SCALE';

/**
 * Reads the factor from the variable's text: unset or empty is 1.
 *
 * @throws Error for anything but a positive finite number, naming the variable and the text, so a typo
 * fails the run at once instead of running it with limits nobody chose.
 */
export function readTimeScale(text: string | undefined): number {
  if (text === undefined || text.trim() === '') return 1;
  const scale = Number(text);
  if (!Number.isFinite(scale) || scale <= 0) {
    throw new Error(
      `${TIME_SCALE_VARIABLE} must be a positive number (2 makes every limit of the tests twice as long), not ${JSON.stringify(text)}`,
    );
  }
  return scale;
}

/** The factor this process runs with. */
export const TIME_SCALE = readTimeScale(process.env[TIME_SCALE_VARIABLE]);

/** A limit of `ms` milliseconds on an idle machine, stretched by {@link TIME_SCALE}. */
export function scaled(ms: number): number {
  return Math.round(ms * TIME_SCALE);
}
