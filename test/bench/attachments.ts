/**
 * Figures of attachments (issue 29): a 10 MB file uploaded end to end as Teable's client does it
 * (signature, PUT to the presigned URL, notify, the cell written), with each request's round
 * trips and time; the memory of the process through it (the bytes never pass through the API);
 * `uploadAttachment` with a 1 MB form; a page of 100 records with a file each (download URLs are
 * signed in process: no round trip per file); the thumbnails of a 4,000 × 3,000 JPEG; a page of
 * images (their thumbnails' state read once).
 *
 * Run inside `npm run bench`, or alone: `tsx test/bench/attachments.ts` (its own DynamoDB Local
 * and S3-compatible server).
 */
import { isScript, runAlone } from './alone.ts';

export const attachmentsBench = async (token: string) => {
  const { call } = await import('#test/support/invoke.ts');
  const { uploadForm } = await import('#test/support/attachments.ts');
  const { callSummary, resetCalls, itemsRead } = await import('#shared/db/metrics.ts');

  const space = await call('create-space', { token, body: { name: 'Files' } });
  const base = await call('create-base', { token, body: { spaceId: space.body.id } });
  const baseId = base.body.id as string;
  const table = await call('create-table', {
    token,
    params: { baseId },
    body: {
      fields: [
        { name: 'Name', type: 'singleLineText' },
        { name: 'Files', type: 'attachment' },
      ],
      records: [],
    },
  });
  const tableId = table.body.id as string;
  const filesId = (table.body.fields as { id: string; name: string }[]).find((f) => f.name === 'Files')
    ?.id as string;

  console.log('\n## Attachments (local S3-compatible server, loopback)\n');
  type Answer = Awaited<ReturnType<typeof call>>;
  const rows: string[] = [];
  const step = async (label: string, run: () => Promise<Answer>): Promise<Answer> => {
    resetCalls();
    const t = performance.now();
    const res = await run();
    const ms = performance.now() - t;
    const s = callSummary();
    rows.push(`| ${label} | ${res.status} | ${s.sequentialRoundTrips} | ${ms.toFixed(0)} ms |`);
    return res;
  };
  const rssMb = () => process.memoryUsage().rss / 1048576;

  // 1. 10 MB end to end, Teable's flow (warm: one small upload first)
  const upload = async (bytes: Uint8Array, record: boolean, measure: boolean) => {
    const run = measure ? step : (_: string, f: () => Promise<Answer>) => f();
    const signature = await run('POST /attachments/signature', () =>
      call('sign-attachment-upload', {
        token,
        body: { contentType: 'application/octet-stream', contentLength: bytes.length, type: 1, baseId },
      }),
    );
    const t = performance.now();
    const put = await fetch(signature.body.url, {
      method: 'PUT',
      headers: signature.body.requestHeaders,
      body: bytes,
    });
    if (measure)
      rows.push(
        `| PUT the bytes to the presigned URL (S3, not the API) | ${put.status} | – | ${(performance.now() - t).toFixed(0)} ms |`,
      );
    await run('POST /attachments/notify/{token}', () =>
      call('notify-attachment', {
        token,
        params: { token: signature.body.token },
        query: 'filename=big.bin',
      }),
    );
    if (record)
      await run('POST /table/{t}/record (the cell names the token)', () =>
        call('create-records', {
          token,
          params: { tableId },
          body: {
            fieldKeyType: 'id',
            records: [{ fields: { [filesId]: [{ token: signature.body.token }] } }],
          },
        }),
      );
  };
  await upload(new Uint8Array(1024), true, false);
  const before = rssMb();
  const started = performance.now();
  await upload(new Uint8Array(10 * 1024 * 1024).fill(7), true, true);
  const total = performance.now() - started;
  console.log('| request (warm) | status | round trips (DynamoDB) | time |');
  console.log('|---|---:|---:|---:|');
  for (const row of rows) console.log(row);
  console.log(
    `\n10 MB file end to end (signature, PUT, notify, record): ${total.toFixed(0)} ms; this process's memory ${before.toFixed(0)} → ${rssMb().toFixed(0)} MB (the test's own 10 MB buffer included: the API never holds the bytes).`,
  );

  // 2. uploadAttachment with a 1 MB form (the bytes do pass through the API: a Lambda's payload)
  const created = await call('create-records', {
    token,
    params: { tableId },
    body: { records: [{ fields: { Name: 'f' } }] },
  });
  const recordId = created.body.records[0].id as string;
  rows.length = 0;
  await step('POST …/uploadAttachment (1 MB multipart file)', () =>
    call('upload-record-attachment', {
      token,
      params: { tableId, recordId, fieldId: filesId },
      ...uploadForm({
        file: new Uint8Array(1024 * 1024).fill(1),
        filename: 'one.bin',
        contentType: 'application/octet-stream',
      }),
    }),
  );
  console.log(`\n${rows[0]?.replace(/^\| /, '').replace(/ \|$/, '').split(' | ').join(', ')}.`);

  // 3. a page of 100 records, each with a file: the URLs cost no round trip
  const records = Array.from({ length: 100 }, (_, i) => ({ fields: { Name: `r${i}` } }));
  const many = await call('create-records', { token, params: { tableId }, body: { records } });
  const file = (
    await call('list-records', { token, params: { tableId }, query: 'take=2' })
  ).body.records.find((r: { fields: Record<string, unknown> }) => r.fields.Files)?.fields.Files[0];
  await call('update-records', {
    token,
    params: { tableId },
    body: {
      records: (many.body.records as { id: string }[]).map((r) => ({
        id: r.id,
        fields: { Files: [{ token: file.token, name: 'same.bin' }] },
      })),
    },
  });
  const page = async (withFiles: boolean) => {
    const query = `take=100&skip=0${withFiles ? '' : `&projection[]=Name`}`;
    await call('list-records', { token, params: { tableId }, query });
    resetCalls();
    const t = performance.now();
    const res = await call('list-records', { token, params: { tableId }, query });
    return {
      ms: performance.now() - t,
      trips: callSummary().sequentialRoundTrips,
      items: itemsRead(),
      n: res.body.records.length,
    };
  };
  const plain = await page(false);
  const withUrls = await page(true);
  console.log(
    `\nGET /table/{t}/record?take=100: with a file in every record (100 download URLs signed) ${withUrls.trips} round trips, ${withUrls.ms.toFixed(0)} ms; the same page without the file field ${plain.trips} round trips, ${plain.ms.toFixed(0)} ms.`,
  );

  // 4. thumbnails of a 4,000 × 3,000 JPEG (a phone photo's size), made by the worker after notify
  const { default: sharp } = await import('sharp');
  const { makeThumbnails } = await import('#shared/attachments/thumbnails.ts');
  const { drainPurges } = await import('#shared/jobs/purge-queue.ts');
  const photo = new Uint8Array(
    await sharp({
      create: {
        width: 4000,
        height: 3000,
        channels: 3,
        background: '#557799',
        noise: { type: 'gaussian', mean: 128, sigma: 40 },
      },
    })
      .jpeg({ quality: 85 })
      .toBuffer(),
  );
  const signature = await call('sign-attachment-upload', {
    token,
    body: { contentType: 'image/jpeg', contentLength: photo.length, type: 1, baseId },
  });
  await fetch(signature.body.url, { method: 'PUT', headers: signature.body.requestHeaders, body: photo });
  const notifyStarted = performance.now();
  const notified = await call('notify-attachment', {
    token,
    params: { token: signature.body.token },
    query: 'filename=photo.jpg',
  });
  const notifyMs = performance.now() - notifyStarted;
  await drainPurges();
  const runs: number[] = [];
  let peak = 0;
  for (let i = 0; i < 5; i++) {
    const rss = process.memoryUsage().rss;
    const t = performance.now();
    const timer = setInterval(() => {
      peak = Math.max(peak, process.memoryUsage().rss - rss);
    }, 5);
    await makeThumbnails(signature.body.token);
    clearInterval(timer);
    runs.push(performance.now() - t);
  }
  runs.sort((a, b) => a - b);
  console.log(
    `\nThumbnails of a 4,000 × 3,000 JPEG (${(photo.length / 1048576).toFixed(1)} MB; sm 56 px and lg 525 px high, read from and written to the S3-compatible server): median ${runs[2]?.toFixed(0)} ms over 5 runs (min ${runs[0]?.toFixed(0)}, max ${runs[4]?.toFixed(0)}), memory up to +${(peak / 1048576).toFixed(0)} MB; notify itself answered in ${notifyMs.toFixed(0)} ms (${notified.status}) — the thumbnails are made after it, by the worker.`,
  );

  // 5. a page whose records hold images: their thumbnails' state is one batch read, beside the link titles
  await call('update-records', {
    token,
    params: { tableId },
    body: {
      records: (many.body.records as { id: string }[]).map((r) => ({
        id: r.id,
        fields: { Files: [{ token: signature.body.token, name: 'photo.jpg' }] },
      })),
    },
  });
  const images = await page(true);
  console.log(
    `\nGET /table/{t}/record?take=100 with the photo in every record (presigned URL and two thumbnail URLs each): ${images.trips} round trips, ${images.ms.toFixed(0)} ms.`,
  );
};

if (isScript(import.meta.url)) await runAlone('attachments', attachmentsBench);
