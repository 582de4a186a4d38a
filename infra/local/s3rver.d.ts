/** The local S3-compatible server ships no types: the little `s3-local.ts` uses of it. */
declare module '@20minutes/s3rver' {
  const S3rver: new (
    options: Record<string, unknown>,
  ) => { run(): Promise<{ port: number; address: string }>; close(): Promise<void> };
  export default S3rver;
}
declare module '@20minutes/s3rver/lib/models/account.js' {
  const account: { DUMMY_ACCOUNT: { createKeyPair(id: string, secret: string): void } };
  export default account;
}
