import * as z from 'zod/mini';
import { defineHandler } from '#shared/http/handler.ts';
import { displayName } from '#shared/http/validation.ts';
import { createOrganization } from '#shared/organizations/organizations.ts';

const body = z.object({ name: displayName });

export const handler = defineHandler('create-organization', { body }, async ({ principal, body }) =>
  createOrganization(principal, body.name),
);
