/**
 * A CSV import as the bench sections start one: the file uploaded (signature, put, notify), then
 * `POST /import/{baseId}` into a new table with the given columns (the file's own order, a header
 * row). The worker's run is the caller's to wait for (`drainPurges`) and to measure.
 */
export interface CsvColumn {
  name: string;
  type: string;
}

/** Uploads a CSV into a base; answers the token an import names it by. */
export const uploadCsv = async (token: string, baseId: string, bytes: Uint8Array): Promise<string> => {
  const { call } = await import('#test/support/invoke.ts');
  const { signAndPut } = await import('#test/support/attachments.ts');
  const signature = await signAndPut(token, baseId, bytes, 'text/csv');
  await call('notify-attachment', { token, params: { token: signature.token }, query: 'filename=bench.csv' });
  return signature.token;
};

/** Starts the import of an uploaded CSV into a new table named `name`; answers the new table's id. */
export const startCsvImport = async (
  token: string,
  baseId: string,
  file: string,
  name: string,
  columns: readonly CsvColumn[],
): Promise<string> => {
  const { call } = await import('#test/support/invoke.ts');
  const res = await call('import-table-from-file', {
    token,
    params: { baseId },
    body: {
      worksheets: {
        'Import Table': {
          name,
          columns: columns.map((c, i) => ({ name: c.name, type: c.type, sourceColumnIndex: i })),
          useFirstRowAsHeader: true,
          importData: true,
        },
      },
      attachmentUrl: file,
      fileType: 'csv',
    },
  });
  if (res.status !== 201 && res.status !== 200)
    throw new Error(`import-table-from-file: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body[0].id as string;
};
