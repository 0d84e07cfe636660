import type { Clock } from '../../../src/core/clock';

/** A clock that moves only when a test moves it. */
export class FixedClock implements Clock {
  constructor(private time: number = Date.UTC(2026, 0, 1)) {}

  now(): number {
    return this.time;
  }

  advance(ms: number): void {
    this.time += ms;
  }
}
