/**
 * Runs a reload one at a time, in the order asked, folding the asks that arrive while one waits into
 * it. A reload reads the settings when it starts, so the waiting one, run after the asks it folded in,
 * reads all of them; and none can finish after a later one and leave older settings in force.
 */
export function oneAtATime(run: (why: string) => Promise<void>): (why: string) => Promise<void> {
  let waiting: Promise<void> | undefined;
  let last: Promise<void> = Promise.resolve();
  return (why) => {
    waiting ??= last = last
      .catch(() => undefined)
      .then(() => {
        waiting = undefined;
        return run(why);
      });
    return waiting;
  };
}
