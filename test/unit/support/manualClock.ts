import type { Clock } from '../../../src/core/clock';

/** A clock a test moves by hand. */
export class ManualClock implements Clock {
  constructor(private time = Date.UTC(2025, 5, 12, 8, 0, 0)) {}

  now(): number {
    return this.time;
  }

  advance(ms: number): void {
    this.time += ms;
  }
}
