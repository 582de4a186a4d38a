import type { Reporter } from 'vitest/node';

/** `11 min 0 s` for 659.6 s: whole seconds, rounded once. Pure. */
export const wallTimeText = (seconds: number): string => {
  const whole = Math.round(seconds);
  return `${Math.floor(whole / 60)} min ${whole % 60} s`;
};

/** Prints the suite's wall time at the end of `npm test`, so a slower suite is seen at once. */
export default class WallTimeReporter implements Reporter {
  private started = performance.now();

  onInit(): void {
    this.started = performance.now();
  }

  onTestRunEnd(): void {
    const seconds = (performance.now() - this.started) / 1000;
    console.log(`\nSuite wall time: ${wallTimeText(seconds)} (test/README.md lists the slowest files)`);
  }
}
