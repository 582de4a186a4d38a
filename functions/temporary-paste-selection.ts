import { defineHandler } from '#shared/http/handler.ts';
import { readPasteContent, readPasteHeader } from '#shared/listing/clipboard.ts';
import { readListParams } from '#shared/listing/params.ts';
import { previewPaste } from '#shared/listing/paste-preview.ts';
import { readRanges } from '#shared/listing/selection.ts';
import { jsonObject, tableParams } from '#shared/schema/schema-requests.ts';

/** The values a paste would write, one entry per pasted row; nothing is written. */
export const handler = defineHandler(
  'temporary-paste-selection',
  { params: tableParams, body: jsonObject },
  async ({ body, principal, resource, schema }) => {
    const { viewId, projection, ignoreViewQuery, ranges, content, header } = body;
    readPasteHeader(header);
    return previewPaste(principal, resource, schema, {
      params: readListParams({ viewId, projection, ignoreViewQuery }),
      ranges: readRanges(ranges),
      content: readPasteContent(content),
    });
  },
);
