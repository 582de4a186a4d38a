import { fileURLToPath } from 'node:url';
import { App, type AppProps } from 'aws-cdk-lib';
import { WorkspaceApiStack } from './stack.ts';
import { stackNameFor, stageConfig } from './stage-config.ts';

/** The repository root (this file is in `infra/`); ESM has no __dirname. */
export const PROJECT_ROOT = fileURLToPath(new URL('..', import.meta.url));

/**
 * The CDK app with the stack of the stage named by the `stage` context (`-c stage=prod`), `dev` by
 * default. Apart from `app.ts` so tests can build it without synthesising.
 */
export const createApp = (props: AppProps = {}): { app: App; stack: WorkspaceApiStack } => {
  const app = new App(props);
  const stage = String(app.node.tryGetContext('stage') ?? 'dev');
  const config = stageConfig(stage);
  const mailFrom = app.node.tryGetContext('mailFrom');
  const powertools = app.node.tryGetContext('powertools');
  // `-c webOrigin=https://web.example.com`: a running Teable web app, put on one origin with the APIs
  const webOrigin = app.node.tryGetContext('webOrigin');
  if (powertools !== undefined && powertools !== 'layer' && powertools !== 'bundled')
    throw new Error(`-c powertools=${String(powertools)}: use layer (the default) or bundled`);
  const stack = new WorkspaceApiStack(app, stackNameFor(stage), {
    config: {
      ...config,
      ...(typeof mailFrom === 'string' && mailFrom ? { mailFrom } : {}),
      ...(powertools ? { powertools } : {}),
      ...(typeof webOrigin === 'string' && webOrigin ? { webOrigin } : {}),
    },
    projectRoot: PROJECT_ROOT,
  });
  return { app, stack };
};
