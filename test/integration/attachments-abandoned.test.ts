import { describe, expect, it } from 'vitest';
import { deleteItems } from '#shared/db/client.ts';
import { keys } from '#shared/db/keys.ts';
import { headObject } from '#shared/storage/objects.ts';
import { signAndPut, uploadFile } from '#test/support/attachments.ts';
import { useStreamPoller } from '#test/support/stream-poller.ts';
import { newWorkspace } from '#test/support/workspace.ts';

/**
 * Uploads signed and never confirmed (issue 29, lifecycle): when their pending item goes (TTL, a
 * day after the signature; removed by hand here, as DynamoDB Local runs no TTL), the stream
 * processor removes the object the caller put. A confirmed file's item is never removed so.
 */

const poller = useStreamPoller();

describe('abandoned uploads', () => {
  it("a pending upload's object is removed once its item is gone; a confirmed file's object stays", async () => {
    const ws = await newWorkspace();
    const pending = await signAndPut(
      ws.owner.auth,
      ws.baseId,
      new TextEncoder().encode('never notified'),
      'text/plain',
    );
    const kept = await uploadFile(ws.owner.auth, ws.baseId);
    const path = `table/${pending.token}`;
    expect(await headObject(path)).toMatchObject({ size: 14 });

    await deleteItems([keys.attachment(pending.token)]);
    await poller.caughtUp();

    expect(await headObject(path)).toBeUndefined();
    expect(await headObject(kept.path)).toMatchObject({ size: kept.size });
  });
});
