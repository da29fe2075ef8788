import * as z from 'zod';
import { evidenceLinks } from '../../domain/evidence.js';
import { readRefusal } from '../../domain/evidence-files.js';
import { PROFILES } from '../../files/profiles.js';
import { conflict, forbidden, notFound } from '../../errors.js';
import { NoQuery } from '../kernel/common.js';
import { EVIDENCE_PATH, EvidenceParams, evidenceCollections, evidenceOf, evidencePrefetch } from './access.js';
import { READERS, SOURCE_PERMISSION } from './readers.js';
import type { OperationContext } from '../kernel/operation.js';
import { operation } from './declare.js';

/*
 * The content and download of an evidence item (operations.md rows 47 and 48), read live from its
 * source, private and never cached. Files stream from storage; served by the downloads function.
 */

const REFUSED = {
  unsupported_content_representation: "This item's content is not offered here; follow the item's links.",
  evidence_content_too_large: `The file is too large for the content endpoint; download it (links.download).`,
} as const;

async function read(ctx: OperationContext, params: EvidenceParams, want: 'content' | 'download') {
  const found = evidenceOf(ctx, params);
  const needs = SOURCE_PERMISSION[found.item.kind];
  if (needs && !ctx.caller.permissions.has(needs)) throw forbidden('permission_denied', `Reading this source needs ${needs}.`);
  const refusal = readRefusal(found.item, want);
  if (refusal?.status === 404) throw notFound('The file is not ready: it is still being processed, or it failed.');
  if (refusal) throw conflict(refusal.code, REFUSED[refusal.code], { links: refusal.links });
  const reader = READERS[want][found.item.kind];
  if (!reader) throw conflict('unsupported_content_representation', REFUSED.unsupported_content_representation, { links: evidenceLinks(found.item).links });
  return { data: undefined as never, file: await reader(ctx, found) };
}

const readOperation = {
  method: 'GET' as const,
  credential: ['project' as const],
  permission: { project: [['view-controls' as const]] },
  success: 200 as const,
  params: EvidenceParams,
  query: NoQuery,
  response: () => z.never(),
  uses: { files: true },
  errors: [409, 502, 504],
  sideEffects: [],
  prefetch: evidencePrefetch,
  prefetchCollections: evidenceCollections,
};

const NOTE =
  'Live, private and never cached. Register sources need view-registers too. 404 while a file is pending or after it failed; 409 (with the links the item has) when the item offers no such reading. A repository file names the commit its ref resolved to (X-Repository-Commit) and its SHA-256 (Repr-Digest, RFC 9530); provider failures are 504 (timeout), 503 (unavailable or throttled) and 502.';

export const getEvidenceContent = operation({
  ...readOperation,
  id: 'getEvidenceContent',
  path: `${EVIDENCE_PATH}/{evidence}/content`,
  summary: "An evidence item's content to show inline: a file a browser shows, a register's rows as JSON, a library document's Markdown.",
  description: `${NOTE} A file above 5 MiB is 409 evidence_content_too_large with links.download.`,
  produces: [...PROFILES.evidence.types, 'text/markdown', 'application/octet-stream'],
  handle: async (ctx, { params }) => read(ctx, params, 'content'),
});

export const downloadEvidence = operation({
  ...readOperation,
  id: 'downloadEvidence',
  path: `${EVIDENCE_PATH}/{evidence}/download`,
  summary: "An evidence item's file as an attachment, streamed.",
  description: `${NOTE} Only files (uploads and links to them) have a download.`,
  produces: [...PROFILES.evidence.types, 'application/octet-stream'],
  handle: async (ctx, { params }) => read(ctx, params, 'download'),
});
