import { readFileSync } from 'node:fs';
import { CfnDynamicReference, CfnDynamicReferenceService, Stack } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import type { BundlingOptions, NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import type { Construct } from 'constructs';

/**
 * Powertools and X-Ray on every Lambda of the stack. The handlers log, count (Metrics, EMF) and
 * trace (Tracer, the DynamoDB client captured) with Powertools; its packages come from the
 * Powertools Lambda layer of exactly the version `package.json` pins (AWS publishes the layer's ARN
 * per version and region in a public SSM parameter, resolved at deploy time), so the bundles stay
 * small. `-c powertools=bundled` bundles them instead, with no layer: for `sam local`, which
 * cannot resolve the SSM reference.
 */
export type PowertoolsMode = 'layer' | 'bundled';

const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
  dependencies: Record<string, string>;
};

/** The pinned Powertools version: the layer must hold the code the tests ran. */
export const POWERTOOLS_VERSION = pkg.dependencies['@aws-lambda-powertools/logger'] as string;

/** The public SSM parameter holding the layer's ARN for that version, in the deploying region. */
export const POWERTOOLS_LAYER_PARAMETER = `/aws/service/powertools/typescript/generic/all/${POWERTOOLS_VERSION}`;

/** The layer, once per stack (each nested stack references it itself). */
const powertoolsLayer = (scope: Construct): lambda.ILayerVersion => {
  const stack = Stack.of(scope);
  const id = 'PowertoolsLayer';
  return (
    (stack.node.tryFindChild(id) as lambda.ILayerVersion | undefined) ??
    lambda.LayerVersion.fromLayerVersionArn(
      stack,
      id,
      new CfnDynamicReference(CfnDynamicReferenceService.SSM, POWERTOOLS_LAYER_PARAMETER).toString(),
    )
  );
};

/** What every function role needs to send its traces (X-Ray takes no resource-level ARN). */
export const xrayStatement = (): iam.PolicyStatement =>
  new iam.PolicyStatement({
    sid: 'Traces',
    actions: ['xray:PutTraceSegments', 'xray:PutTelemetryRecords'],
    resources: ['*'],
  });

/** The bundling and layers of a function, by how Powertools is delivered. */
export const powertoolsFor = (
  scope: Construct,
  bundling: BundlingOptions,
  mode: PowertoolsMode,
): { bundling: BundlingOptions; layers: lambda.ILayerVersion[] } =>
  mode === 'layer'
    ? { bundling, layers: [powertoolsLayer(scope)] }
    : {
        bundling: {
          ...bundling,
          externalModules: (bundling.externalModules ?? []).filter(
            (m) => !m.startsWith('@aws-lambda-powertools'),
          ),
        },
        layers: [],
      };

/**
 * Turns on X-Ray active tracing. Set on the CloudFormation resource rather than with `tracing`:
 * that prop would add a policy resource to each shared role, whose inline policy already holds
 * `xrayStatement`.
 */
export const traceActively = (fn: NodejsFunction): NodejsFunction => {
  (fn.node.defaultChild as lambda.CfnFunction).tracingConfig = { mode: 'Active' };
  return fn;
};
