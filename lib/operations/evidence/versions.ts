import * as z from 'zod';
import { once } from '../../domain/validation.js';
import { EvidenceView, evidenceView } from '../../domain/evidence.js';
import { NoQuery } from '../kernel/common.js';
import { EVIDENCE_PATH } from './access.js';
import { pinnedOf, VersionParams, versionPrefetch } from './version-access.js';
import { operation } from './declare.js';

/** A captured evidence version as metadata (the file itself: evidence-version-file.ts, served by the downloads function). */
const EvidenceVersion = once(() =>
  EvidenceView()
    .omit({ links: true, etag: true })
    .extend({ version: z.number().int() })
    .meta({ id: 'EvidenceVersion', description: 'An evidence item as a capture pinned it. Files are pinned by their sha256.' }),
);

export const getEvidenceVersion = operation({
  id: 'getEvidenceVersion',
  method: 'GET',
  path: `${EVIDENCE_PATH}/{evidence}/versions/{version}`,
  summary: 'Extension: an evidence item as captured when its control was assessed, at the version evidence_snapshot names.',
  description: 'Only versions a capture pinned exist; any other is 404. Needs the assessment view (view-control-assessment).',
  credential: ['project'],
  permission: { project: [['view-controls', 'view-control-assessment']] },
  success: 200,
  params: VersionParams,
  query: NoQuery,
  response: EvidenceVersion,
  extension: 'evidence-versions',
  sideEffects: [],
  prefetch: versionPrefetch,
  handle: async (ctx, { params }) => {
    const stored = pinnedOf(ctx, params);
    // The response schema keeps what a pinned copy shows: a live item's links and ETag are not part of it.
    return { data: { ...evidenceView(stored, ''), version: stored.version } };
  },
});
