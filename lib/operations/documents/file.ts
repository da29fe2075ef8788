import * as z from 'zod';
import { CATALOGUE, DOCUMENT_KEYS } from '../../domain/documents.js';
import { contentDisposition } from '../../domain/evidence-files.js';
import { notFound } from '../../errors.js';
import { streamObject } from '../../files/storage.js';
import { NoQuery } from '../kernel/common.js';
import { DocumentParams, documentOf, DOCUMENTS_PATH } from './access.js';
import { operation } from './declare.js';
import { keys } from '../../store/keys.js';

const MEDIA_TYPES = [...new Set(DOCUMENT_KEYS.map((k) => CATALOGUE[k].media_type))];

export const downloadDocument = operation({
  id: 'downloadDocument',
  method: 'GET',
  path: `${DOCUMENTS_PATH}/{document}/download`,
  summary: 'The latest completed output (draft or final), streamed, private and never cached; 404 before the first one completes.',
  description: 'Repr-Digest carries the SHA-256 the output row shows (RFC 9530).',
  credential: ['project'],
  permission: { project: [['view-docsuite']] },
  success: 200,
  params: DocumentParams,
  query: NoQuery,
  response: () => z.never(),
  produces: MEDIA_TYPES,
  uses: { files: true },
  sideEffects: [],
  prefetch: (p) => [keys.project(p.project), keys.document(p.project, p.document)],
  handle: async (ctx, { params }) => {
    const { document } = documentOf(ctx, params);
    const output = document.output;
    if (!output) throw notFound('The document has no completed output yet; poll its generation.');
    const object = await streamObject(output.s3_key);
    if (!object) throw notFound('The output is no longer available; generate the document again.');
    return {
      data: undefined as never,
      file: {
        contentType: output.media_type,
        disposition: contentDisposition('attachment', output.file_name),
        headers: { 'Repr-Digest': `sha-256=:${Buffer.from(output.sha256, 'hex').toString('base64')}:` },
        ...object,
      },
    };
  },
});
