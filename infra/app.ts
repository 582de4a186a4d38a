// The CDK app entry point (`cdk.json`: `npx tsx infra/app.ts`). Usage: `cdk synth -c stage=prod`.
import { createApp } from './create-app.ts';

createApp().app.synth();
