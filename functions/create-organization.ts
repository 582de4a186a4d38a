import * as z from 'zod/mini';
import { displayName } from '#shared/core/validation.ts';
import { defineHandler } from '#shared/http/handler.ts';
import { createOrganization } from '#shared/organizations/organizations.ts';

const body = z.object({ name: displayName });

export const handler = defineHandler('create-organization', { body }, async ({ principal, body }) =>
  createOrganization(principal, body.name),
);
