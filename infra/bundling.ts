import { type BundlingOptions, LogLevel, OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';
import type { BuildOptions } from 'esbuild';
import { ROUTES } from '#shared/routes.ts';

/**
 * The esbuild settings of every Lambda, shared by the stack (NodejsFunction) and scripts that
 * call esbuild themselves (bench, local workers), so what is measured is what is deployed.
 */

/** Lambda runs Node 22; bundling for Node 20 keeps one bundle valid here and there. */
export const BUNDLE_TARGET = 'node20';

/**
 * Not bundled: AWS SDK v3 ships with the Lambda runtime, and Powertools (logger, metrics, tracer
 * with its X-Ray SDK, ~150 KB) comes from the Powertools Lambda layer of the same version
 * (`POWERTOOLS_VERSION`, `infra/api-construct.ts`). Bundling either would only add size and
 * cold-start time.
 */
export const EXTERNAL_MODULES = ['@aws-sdk/*', '@aws-lambda-powertools/*'];

/** ESM bundles have no `require`; CommonJS dependencies bundled into them still call it. */
export const ESM_REQUIRE_BANNER =
  "import { createRequire } from 'module'; const require = createRequire(import.meta.url);";

/** Prefer the ESM build of dependencies, which esbuild tree-shakes better. */
export const MAIN_FIELDS = ['module', 'main'];

/** Environment every bundle needs at run time: stack traces through the source maps. */
export const BUNDLE_ENVIRONMENT = { NODE_OPTIONS: '--enable-source-maps' } as const;

/** The NodejsFunction `bundling` options of every Lambda. */
export const LAMBDA_BUNDLING: BundlingOptions = {
  format: OutputFormat.ESM,
  target: BUNDLE_TARGET,
  minify: true,
  sourceMap: true,
  // Maps with line numbers only: traces still point at the TypeScript, the asset stays small.
  sourcesContent: false,
  externalModules: EXTERNAL_MODULES,
  mainFields: MAIN_FIELDS,
  banner: ESM_REQUIRE_BANNER,
  // esbuild's per-bundle size report would drown `cdk synth` output; warnings and errors still show.
  logLevel: LogLevel.WARNING,
};

/**
 * The bundling of the purge worker: as every Lambda's, but sharp (thumbnails) is not bundled — it
 * loads a native libvips — and is installed beside the bundle for the function's platform: Linux
 * on arm64 with glibc (`npm_config_*` choose sharp's prebuilt `@img/sharp-linux-arm64` package,
 * whatever machine runs `cdk deploy`).
 */
export const WORKER_BUNDLING: BundlingOptions = {
  ...LAMBDA_BUNDLING,
  nodeModules: ['sharp'],
  environment: { npm_config_os: 'linux', npm_config_cpu: 'arm64', npm_config_libc: 'glibc' },
};

/**
 * The `define` of a route's Lambda: `BUNDLED_ROUTE`, the JSON text of its route, which
 * `shared/routes.ts` `routeOf` answers instead of searching the table, so each bundle carries one
 * route rather than all of them. Empty for code that serves no route (workers).
 */
export const routeDefine = (handler: string | undefined): Record<string, string> => {
  const route = ROUTES.find((r) => r.handler === handler);
  return route ? { BUNDLED_ROUTE: JSON.stringify(JSON.stringify(route)) } : {};
};

/**
 * Files a route's Lambda reads beside its bundle (paths from the project root): the API reference
 * page's assets from the installed package, and the API description, which would otherwise be
 * bundled as code (`shared/http/docs-page.ts`).
 */
export const FILES_BESIDE_BUNDLE: Readonly<Record<string, readonly string[]>> = {
  'get-docs-asset': [
    'node_modules/swagger-ui-dist/swagger-ui-bundle.js',
    'node_modules/swagger-ui-dist/swagger-ui.css',
  ],
  'get-openapi': ['infra/openapi.json'],
};

/** The NodejsFunction `bundling` options of the Lambda of a route (or of a worker: no handler). */
export const bundlingFor = (handler?: string): BundlingOptions => {
  const files = handler ? FILES_BESIDE_BUNDLE[handler] : undefined;
  return {
    ...LAMBDA_BUNDLING,
    define: routeDefine(handler),
    ...(files
      ? {
          commandHooks: {
            beforeBundling: () => [],
            beforeInstall: () => [],
            afterBundling: (inputDir: string, outputDir: string) =>
              files.map((f) => `cp "${inputDir}/${f}" "${outputDir}/"`),
          },
        }
      : {}),
  };
};

/** The esbuild options equivalent to `bundlingFor(handler)`, for a script that bundles one handler itself. */
export const esbuildOptionsFor = (entryPath: string, outfile?: string, handler?: string): BuildOptions => ({
  entryPoints: [entryPath],
  ...(outfile ? { outfile } : {}),
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: BUNDLE_TARGET,
  minify: true,
  sourcemap: true,
  sourcesContent: false,
  external: EXTERNAL_MODULES,
  mainFields: MAIN_FIELDS,
  banner: { js: ESM_REQUIRE_BANNER },
  define: routeDefine(handler),
  logLevel: 'warning',
});
