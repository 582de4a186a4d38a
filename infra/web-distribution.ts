import { Stack } from 'aws-cdk-lib';
import * as cloudfront from 'aws-cdk-lib/aws-cloudfront';
import * as origins from 'aws-cdk-lib/aws-cloudfront-origins';
import { Construct } from 'constructs';
import type { StageConfig } from './stage-config.ts';
import type { WebSocketApi } from './websocket-api.ts';

export interface WebDistributionProps {
  config: StageConfig;
  /** The HTTP API's id (its routes are `/api/…`). */
  httpApiId: string;
  /** The realtime socket's WebSocket API (stage `socket`). */
  socket: WebSocketApi;
}

/**
 * Sets `X-Forwarded-Host` to the host the browser asked for: API Gateway is reached under its own
 * host, and the API's `Origin` check of a cookie-carried write, the cookie itself and the socket's
 * upgrade follow the one host people open (`shared/auth/same-origin.ts`, `ownHostOf`).
 */
export const FORWARDED_HOST_FUNCTION = `function handler(event) {
  var request = event.request;
  request.headers['x-forwarded-host'] = { value: request.headers.host.value };
  return request;
}`;

/** A stage's `webOrigin`, checked: an http(s) origin, nothing after the host and port. */
export const parseWebOrigin = (webOrigin: string): URL => {
  let url: URL;
  try {
    url = new URL(webOrigin);
  } catch {
    throw new Error(`webOrigin ${JSON.stringify(webOrigin)} is not a URL`);
  }
  if (!['http:', 'https:'].includes(url.protocol) || url.origin !== webOrigin.replace(/\/$/, ''))
    throw new Error(
      `webOrigin ${JSON.stringify(webOrigin)} must be an origin: http(s)://host[:port], no path`,
    );
  return url;
};

/**
 * One origin for Teable's web app in the cloud (contract web-app §3): a CloudFront distribution
 * whose `/api/*` goes to the HTTP API, `/socket` (WebSocket upgrades included) to the realtime
 * socket's WebSocket API, and everything else to the web app's own origin (the stage's
 * `webOrigin`, where a Teable web app serves its pages). Nothing is cached: every request carries
 * its cookie, query and headers (all but `Host`) to its origin, as the browser sent them, plus
 * `X-Forwarded-Host`. Plain HTTP is redirected to HTTPS, so the `Secure` session cookie holds.
 */
export class WebDistribution extends Construct {
  readonly distribution: cloudfront.Distribution;
  /** `https://<id>.cloudfront.net`: the one origin people open. */
  readonly url: string;

  constructor(scope: Construct, id: string, props: WebDistributionProps) {
    super(scope, id);
    const { config, httpApiId, socket } = props;
    if (!config.webOrigin) throw new Error('a web distribution needs the stage webOrigin');
    const web = parseWebOrigin(config.webOrigin);
    const stack = Stack.of(this);
    const forwardedHost = new cloudfront.Function(this, 'ForwardedHost', {
      code: cloudfront.FunctionCode.fromInline(FORWARDED_HOST_FUNCTION),
      runtime: cloudfront.FunctionRuntime.JS_2_0,
      comment: 'Sets X-Forwarded-Host to the host the browser asked for',
    });
    const passThrough = {
      cachePolicy: cloudfront.CachePolicy.CACHING_DISABLED,
      originRequestPolicy: cloudfront.OriginRequestPolicy.ALL_VIEWER_EXCEPT_HOST_HEADER,
      allowedMethods: cloudfront.AllowedMethods.ALLOW_ALL,
      viewerProtocolPolicy: cloudfront.ViewerProtocolPolicy.REDIRECT_TO_HTTPS,
      functionAssociations: [
        { function: forwardedHost, eventType: cloudfront.FunctionEventType.VIEWER_REQUEST },
      ],
    };
    const apiGateway = (apiId: string) =>
      new origins.HttpOrigin(`${apiId}.execute-api.${stack.region}.${stack.urlSuffix}`, {
        protocolPolicy: cloudfront.OriginProtocolPolicy.HTTPS_ONLY,
      });
    const secure = web.protocol === 'https:';
    const webApp = new origins.HttpOrigin(web.hostname, {
      protocolPolicy: secure
        ? cloudfront.OriginProtocolPolicy.HTTPS_ONLY
        : cloudfront.OriginProtocolPolicy.HTTP_ONLY,
      ...(web.port ? (secure ? { httpsPort: Number(web.port) } : { httpPort: Number(web.port) }) : {}),
    });
    this.distribution = new cloudfront.Distribution(this, 'Distribution', {
      comment: `Workspace API ${config.stage}: Teable's web app, /api and /socket on one origin`,
      defaultBehavior: { origin: webApp, ...passThrough },
      additionalBehaviors: {
        '/api/*': { origin: apiGateway(httpApiId), ...passThrough },
        '/socket': { origin: apiGateway(socket.api.ref), ...passThrough },
      },
      priceClass: cloudfront.PriceClass.PRICE_CLASS_100,
    });
    this.url = `https://${this.distribution.distributionDomainName}`;
  }
}
