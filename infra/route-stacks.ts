import { NestedStack } from 'aws-cdk-lib';
import { type HttpApi, HttpMethod, HttpRoute, HttpRouteKey } from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import type { Construct } from 'constructs';
import { API_PREFIX, type RouteDef } from '#shared/routes.ts';
import type { ApiFunctions } from './api-construct.ts';
import type { StageConfig } from './stage-config.ts';

/*
 * How the routes are split over nested stacks
 *
 * CloudFormation allows 500 resources per template and a route costs 4 (function, integration,
 * route, invoke permission), so the routes live in nested stacks, the root keeping the table, the
 * secret, the roles, the log group, the HTTP API and its stage, the workers and the outputs.
 *
 * A route's nested stack is a hash of its handler name modulo a fixed count, `ROUTE_STACK_COUNT`:
 * - Adding or removing a route never moves another route. That matters: moving a route to another
 *   nested stack replaces its function, and the new route would be created while the old one (same
 *   route key, same API) still exists: API Gateway refuses the duplicate and the deploy rolls back.
 * - The handler name is already the route's identity (the function's logical id is made from it);
 *   a route whose handler is renamed is replaced anyway.
 * - Unlike grouping by area (records, tables, spaces, auth…), no group can outgrow its template:
 *   the table area alone has 30-odd routes today and would have to be split (moving routes) the
 *   day it passed the budget. Hashes spread any set of names evenly enough: the tests check the
 *   current routes and a synthetic table of 250.
 * So never change `ROUTE_STACK_COUNT` or `routeStackIndex` on a deployed stage: that moves most
 * routes at once (destroy and redeploy a dev stage; a prod stage would need a planned migration).
 */

/** How many nested stacks the routes are spread over. Fixed for good: see above. */
export const ROUTE_STACK_COUNT = 8;

/** Resources a route costs in its nested stack: function, integration, route, invoke permission. */
export const RESOURCES_PER_ROUTE = 4;

/**
 * At most this many routes in one nested stack (300 resources, far from CloudFormation's 500):
 * synth fails past it rather than deploy fail. With 8 stacks that is room for some 450 routes.
 */
export const MAX_ROUTES_PER_STACK = 75;

/** FNV-1a (32 bits) of a string: small, dependency-free, and the same on every machine forever. */
const fnv1a = (text: string): number => {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
};

/** The nested stack (0 … ROUTE_STACK_COUNT - 1) of the route with this handler. */
export const routeStackIndex = (handler: string): number => fnv1a(handler) % ROUTE_STACK_COUNT;

/** The construct id of the nested stack with this index (its logical id in the root derives from it). */
export const routeStackId = (index: number): string => `Routes${index}`;

/** The routes grouped by nested stack, each group in route-table order; empty groups left out. */
export const groupRoutes = (routes: readonly RouteDef[]): Map<number, RouteDef[]> => {
  const groups = new Map<number, RouteDef[]>();
  for (let index = 0; index < ROUTE_STACK_COUNT; index++) {
    const group = routes.filter((route) => routeStackIndex(route.handler) === index);
    if (group.length) groups.set(index, group);
  }
  return groups;
};

export interface RouteStackProps {
  config: StageConfig;
  /** The root's HTTP API: the routes attach to it (its id comes in as a nested-stack parameter). */
  api: HttpApi;
  /** The root's function defaults: shared roles, log group and environment. */
  functions: ApiFunctions;
  routes: readonly RouteDef[];
  index: number;
}

/**
 * One nested stack of routes: per route its Lambda, integration, API route and invoke permission.
 * What they use from the root (API id, roles, log group, table, secret, queue) CDK passes down as
 * parameters of the nested stack; one `cdk deploy` deploys the root and every nested stack.
 */
export class RouteStack extends NestedStack {
  constructor(scope: Construct, id: string, props: RouteStackProps) {
    const { config, api, functions, routes, index } = props;
    super(scope, id, {
      description: `Workspace API (${config.stage}): routes, group ${index} of ${ROUTE_STACK_COUNT}`,
    });
    if (routes.length > MAX_ROUTES_PER_STACK) {
      throw new Error(
        `nested stack ${id} would hold ${routes.length} routes, more than ${MAX_ROUTES_PER_STACK}: ` +
          'see infra/route-stacks.ts before raising ROUTE_STACK_COUNT',
      );
    }
    for (const route of routes) {
      const fn = functions.addFunction(route, this);
      const path = `${API_PREFIX}${route.path}`;
      // What HttpApi.addRoutes would do, but in this stack rather than in the API's.
      const integration = new HttpLambdaIntegration(`${fn.node.id}Integration`, fn);
      for (const method of route.head ? [route.method, 'HEAD' as const] : [route.method])
        new HttpRoute(this, `${method}${path}`, {
          httpApi: api,
          routeKey: HttpRouteKey.with(path, HttpMethod[method]),
          integration,
        });
    }
  }
}
