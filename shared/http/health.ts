import packageJson from '../../package.json' with { type: 'json' };

/** What `GET /api/health` answers: that the code runs, and which version of it. */
export interface Health {
  status: 'ok';
  version: string;
}

/** The health answer. Reads nothing: a load balancer or a deploy check may call it freely. */
export const health = (): Health => ({ status: 'ok', version: packageJson.version });
