import { definePublicHandler } from '#shared/http/handler.ts';
import { health } from '#shared/http/health.ts';

export const handler = definePublicHandler('get-health', health);
