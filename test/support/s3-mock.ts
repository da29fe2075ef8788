import { Readable } from 'node:stream';

/** A GetObject body as the SDK answers it, for adapter tests on a mocked S3 client: a stream that can also be read whole. */
export const objectBody = (bytes: Buffer) => Object.assign(Readable.from([bytes]), { transformToByteArray: async () => new Uint8Array(bytes) }) as never;

/** An S3 service error as the SDK throws it, known by its name (NoSuchKey, AccessDenied). */
export const s3Error = (name: string) => Object.assign(new Error(name), { name });
