import { config } from '#shared/config.ts';
import { defineHandler } from '#shared/http/handler.ts';

// The instance settings Teable's web app reads (space pages): who may sign up is the stage's
// `signup`; space creation and invitations are open to every user here.
export const handler = defineHandler('get-instance-settings', {}, async () => ({
  instanceId: config.tableName,
  disallowSignUp: config.signup === 'closed',
  disallowSpaceCreation: false,
  disallowSpaceInvitation: false,
}));
