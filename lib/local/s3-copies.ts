import { randomUUID } from 'node:crypto';
import { copyFile, mkdir, rename, rm } from 'node:fs/promises';
import { dirname } from 'node:path';

/** The part of s3rver's filesystem store a copy goes through. */
export interface CopyingStore {
  copyObject(srcBucket: string, srcKey: string, destBucket: string, destKey: string, replacementMetadata?: unknown): Promise<unknown>;
  getMetadata(bucket: string, key: string): Promise<unknown>;
  getResourcePath(bucket: string, key: string, resource: string): string;
}

/** The files s3rver keeps for one object. */
const RESOURCES = ['object', 'object.md5', 'metadata.json'] as const;

/**
 * s3rver's CopyObject unlinks the destination before it copies the source into it, so a copy
 * whose source is deleted meanwhile loses the destination: a duplicate scan delivery copying an
 * upload into the files area just as the first delivery, having released it, deleted its
 * quarantine copy, left the released file gone. S3's CopyObject replaces the destination whole or
 * not at all. Here each of the object's files is copied beside the destination's and renamed over
 * it once all are copied, so a copy that fails part-way leaves the destination as it was. A copy
 * that replaces the metadata, which the API never asks for, stays s3rver's own.
 */
export function copyWhole(store: CopyingStore): void {
  const own = store.copyObject.bind(store);
  store.copyObject = async (srcBucket, srcKey, destBucket, destKey, replacementMetadata) => {
    if (replacementMetadata) return own(srcBucket, srcKey, destBucket, destKey, replacementMetadata);
    const suffix = `.copying-${randomUUID()}`;
    const files = RESOURCES.map((resource) => ({
      from: store.getResourcePath(srcBucket, srcKey, resource),
      to: store.getResourcePath(destBucket, destKey, resource),
    }));
    await mkdir(dirname(files[0]!.to), { recursive: true });
    try {
      for (const { from, to } of files) await copyFile(from, to + suffix);
      for (const { to } of files) await rename(to + suffix, to);
    } finally {
      await Promise.all(files.map(({ to }) => rm(to + suffix, { force: true })));
    }
    return store.getMetadata(destBucket, destKey);
  };
}
