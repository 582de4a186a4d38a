import type { Reporter } from 'vitest/node';

/** Prints the suite's wall time at the end of `npm test`, so a slower suite is seen at once. */
export default class WallTimeReporter implements Reporter {
  private started = performance.now();

  onInit(): void {
    this.started = performance.now();
  }

  onTestRunEnd(): void {
    const seconds = (performance.now() - this.started) / 1000;
    const minutes = Math.floor(seconds / 60);
    console.log(
      `\nSuite wall time: ${minutes} min ${Math.round(seconds - minutes * 60)} s (test/README.md lists the slowest files)`,
    );
  }
}
