/**
 * Which records' cells hold a file (`ATTREF#<token>` `<tableId>#<recordId>`): one item per record
 * and file, kept by the stream processor from the records' images (`attachments/references.ts`),
 * so a file no record holds any more can be released, and one still held elsewhere is kept. A
 * cell that copies a token (typecast, paste, Teable's copy between fields) adds a reference like
 * any other.
 */
import { deleteItems, queryPage, writeItems } from '#shared/db/client.ts';
import { keys } from '#shared/db/keys.ts';

/** A record that holds a file. */
export interface AttachmentReference {
  token: string;
  tableId: string;
  recordId: string;
}

const keyOf = (r: AttachmentReference) => keys.attachmentReference(r.token, r.tableId, r.recordId);

/** Records references (idempotent). */
export const putReferences = async (refs: readonly AttachmentReference[]): Promise<void> =>
  writeItems(refs.map((r) => ({ put: { ...keyOf(r), type: 'attachmentRef', ...r } })));

/** Forgets references (idempotent). */
export const dropReferences = async (refs: readonly AttachmentReference[]): Promise<void> =>
  deleteItems(refs.map(keyOf));

/** True when some record holds the file (one strongly consistent read of at most one item). */
export const isReferenced = async (token: string): Promise<boolean> =>
  (await queryPage({ ...keys.attachmentReferencesOf(token), limit: 1, projection: ['pk'] })).items.length > 0;

/** True when a record of `tableId` holds the file (one strongly consistent read of at most one item). */
export const isReferencedIn = async (token: string, tableId: string): Promise<boolean> =>
  (
    await queryPage({
      ...keys.attachmentReferencesOf(token),
      skPrefix: `${tableId}#`,
      limit: 1,
      projection: ['pk'],
    })
  ).items.length > 0;
