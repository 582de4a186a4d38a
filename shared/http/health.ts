import { captureLagMs } from '#shared/changes/capture-lag.ts';
import packageJson from '../../package.json' with { type: 'json' };

/**
 * What `GET /api/health` answers: that the code runs, which version of it, and where the process
 * can tell (the local server), how far the change capture is behind the writes (`capture.lagSeconds`:
 * webhooks, live and the socket are that far behind; 0 once it has caught up).
 */
export interface Health {
  status: 'ok';
  version: string;
  capture?: { lagSeconds: number };
}

/** The health answer. Reads nothing: a load balancer or a deploy check may call it freely. */
export const health = (): Health => {
  const lag = captureLagMs();
  return {
    status: 'ok',
    version: packageJson.version,
    ...(lag === undefined ? {} : { capture: { lagSeconds: Math.round(lag / 100) / 10 } }),
  };
};
