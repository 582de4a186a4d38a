import { existsSync } from 'node:fs';

/**
 * The headless Chromium the browser tests drive (Debian's `chromium`, with the project's
 * `playwright-core`): where it is, or why the browser tests are skipped (`.ci/run` installs it).
 */
const CANDIDATES = [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser'].filter(
  (p): p is string => !!p,
);

export const chromiumPath: string | undefined = CANDIDATES.find((p) => existsSync(p));

export const NO_CHROMIUM =
  'no Chromium here: `apt-get install -y --no-install-recommends chromium` (or set CHROMIUM_PATH); .ci/run installs it';

/** Launches it headless (no sandbox: CI runs as root in a container). */
export const launchChromium = async () => {
  const { chromium } = await import('playwright-core');
  return chromium.launch({ executablePath: chromiumPath, args: ['--no-sandbox'] });
};
