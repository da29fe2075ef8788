declare module 's3rver' {
  interface S3rverOptions {
    port?: number;
    address?: string;
    directory: string;
    silent?: boolean;
    configureBuckets?: { name: string }[];
  }
  export default class S3rver {
    constructor(options: S3rverOptions);
    run(): Promise<{ port: number }>;
    close(callback: () => void): void;
    /** Its filesystem store (lib/local/s3-copies.ts wraps its copies). */
    readonly store: import('./s3-copies.js').CopyingStore;
  }
}
