import * as z from 'zod';
import { fileOf } from '../../domain/evidence.js';
import { contentDisposition } from '../../domain/evidence-files.js';
import { conflict, notFound } from '../../errors.js';
import { PROFILES } from '../../files/profiles.js';
import { streamObject } from '../../files/storage.js';
import { NoQuery } from '../kernel/common.js';
import { EVIDENCE_PATH } from './access.js';
import { pinnedOf, VersionParams, versionPrefetch } from './version-access.js';
import { operation } from './declare.js';

export const downloadEvidenceVersion = operation({
  id: 'downloadEvidenceVersion',
  method: 'GET',
  path: `${EVIDENCE_PATH}/{evidence}/versions/{version}/download`,
  summary: 'Extension: the file of a captured evidence version, as its sha256 pinned it, streamed, private and never cached.',
  description:
    'Only files are pinned with their bytes: other kinds are 409 unsupported_content_representation. A file condemned since (a malicious verdict on its bytes) is 404.',
  credential: ['project'],
  permission: { project: [['view-controls', 'view-control-assessment']] },
  success: 200,
  params: VersionParams,
  query: NoQuery,
  response: () => z.never(),
  produces: [...PROFILES.evidence.types],
  extension: 'evidence-versions',
  uses: { files: true },
  errors: [409],
  sideEffects: [],
  prefetch: versionPrefetch,
  handle: async (ctx, { params }) => {
    const stored = pinnedOf(ctx, params);
    const file = fileOf(stored);
    if (!file) throw conflict('unsupported_content_representation', 'Only files are pinned with their bytes; read this version as metadata.', { links: {} });
    // A capture pins ready files only, which their scan released with their detected type.
    const object = file.detected_type ? await streamObject(file.s3_key) : undefined;
    if (!object || !file.detected_type) throw notFound('The file is no longer available.');
    return {
      data: undefined as never,
      file: { contentType: file.detected_type, disposition: contentDisposition('attachment', file.file_name), ...object },
    };
  },
});
