import { defineHandler } from '#shared/http/handler.ts';
import { readPasteContent, readPasteHeader } from '#shared/listing/clipboard.ts';
import { readListParams } from '#shared/listing/params.ts';
import { readRanges, readRangeType } from '#shared/listing/selection.ts';
import { jsonObject, tableParams } from '#shared/schema/schema-requests.ts';
import { pasteSelection } from '#shared/tables/paste.ts';

/** Pastes text or rows of cells from a grid selection's top-left cell, as a typecast write. */
export const handler = defineHandler(
  'paste-selection',
  { params: tableParams, body: jsonObject },
  async ({ body, principal, resource, schema }) => {
    const { ranges, type, content, header, ...q } = body;
    readPasteHeader(header);
    return pasteSelection(principal, resource, schema, {
      params: readListParams(q),
      ranges: readRanges(ranges),
      type: readRangeType(type),
      content: readPasteContent(content),
    });
  },
);
