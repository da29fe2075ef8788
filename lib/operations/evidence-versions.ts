import * as z from 'zod';
import { EvidenceView, evidenceView, type StoredEvidence } from '../domain/evidence.js';
import { singleLine } from '../domain/validation.js';
import { notFound } from '../errors.js';
import { keys, withoutKeys } from '../store/keys.js';
import { NoQuery } from './common.js';
import { controlPrefetch } from './control-access.js';
import { EVIDENCE_PATH, EvidenceParams } from './evidence-access.js';
import { operation } from './operation.js';
import { boundProjectOf } from './project-access.js';

/**
 * The immutable copy of an evidence item that a capture pinned on assessing_to_assessed (issue 12,
 * Capture): readable after the live item is replaced or deleted. Captures are assessment content,
 * like the snapshot that names them, so reading one needs the assessment view.
 */
const VersionParams = EvidenceParams.extend({
  version: singleLine()
    .regex(/^[1-9][0-9]{0,5}$/, 'decimal digits')
    .transform(Number)
    .meta({ description: 'A version the control’s evidence_snapshot names.' }),
});

const EvidenceVersion = EvidenceView.omit({ links: true, etag: true })
  .extend({ version: z.number().int() })
  .meta({ id: 'EvidenceVersion', description: 'An evidence item as a capture pinned it. Files are pinned by their sha256.' });

export const getEvidenceVersion = operation({
  id: 'getEvidenceVersion',
  group: 'evidence',
  method: 'GET',
  path: `${EVIDENCE_PATH}/{evidence}/versions/{version}`,
  summary: 'Extension: an evidence item as captured when its control was assessed, at the version evidence_snapshot names.',
  description: 'Only versions a capture pinned exist; any other is 404. Needs the assessment view (view-control-assessment).',
  credential: ['project'],
  permission: { project: [['view-controls', 'view-control-assessment']] },
  mode: 'read',
  success: 200,
  params: VersionParams,
  query: NoQuery,
  response: EvidenceVersion,
  extension: 'evidence-versions',
  errors: [422],
  sideEffects: [],
  prefetch: (p) => [...controlPrefetch(p), keys.evidenceVersion(p.project, p.evidence, p.version)],
  handle: async (ctx, { params }) => {
    boundProjectOf(ctx, params.project);
    const item = ctx.prefetched(keys.evidenceVersion(params.project, params.evidence, params.version));
    const stored = item ? (withoutKeys(item) as unknown as StoredEvidence) : undefined;
    if (!stored || stored.control_id !== params.control) throw notFound();
    // The response schema keeps what a pinned copy shows: a live item's links and ETag are not part of it.
    return { data: { ...evidenceView(stored, ''), version: stored.version } };
  },
});
