import type * as z from 'zod';
import type { StoredEvidence } from '../../domain/evidence.js';
import { singleLine, once } from '../../domain/validation.js';
import { notFound } from '../../errors.js';
import { toEvidence } from '../../store/evidence.js';
import { keys } from '../../store/keys.js';
import { EvidenceParams } from './access.js';
import type { OperationContext } from '../kernel/operation.js';
import { boundProjectOf } from '../projects/access.js';

/**
 * The immutable copies of evidence items that a capture pinned on assessing_to_assessed (issue 12,
 * Capture), readable after the live item is replaced or deleted. Captures are assessment content,
 * like the snapshot that names them, so reading one needs the assessment view.
 */
export const VersionParams = once(() =>
  EvidenceParams().extend({
    version: singleLine()
      .regex(/^[1-9][0-9]{0,5}$/, 'decimal digits')
      .transform(Number)
      .meta({ description: 'A version the control’s evidence_snapshot names.' }),
  }),
);

export type VersionParams = z.output<ReturnType<typeof VersionParams>>;

/** The copy names its control, so the project and the copy are all a read needs. */
export const versionPrefetch = (p: VersionParams) => [keys.project(p.project), keys.evidenceVersion(p.project, p.evidence, p.version)];

/** The pinned copy, when a capture of this control made it. */
export function pinnedOf(ctx: OperationContext, params: VersionParams): StoredEvidence {
  boundProjectOf(ctx, params.project);
  const item = ctx.prefetched(keys.evidenceVersion(params.project, params.evidence, params.version));
  const stored = item ? toEvidence(item) : undefined;
  if (!stored || stored.control_id !== params.control) throw notFound();
  return stored;
}
