import type * as z from 'zod';
import {
  affectsApplicability,
  changedFields,
  completeData,
  contextView,
  contextPatchSchema,
  contextResponseSchema,
  type ContextData,
  type ContextDefinition,
} from '../../domain/context.js';
import { etagFor, requireIfMatch } from './etag.js';
import { notFound } from '../../errors.js';
import type { Key } from '../../store/keys.js';
import { recalculationMarker, type RecalculationSubject } from '../../store/recalculations.js';
import type { WriteItem } from '../../store/transact.js';
import { asContext } from '../../store/contexts.js';
import { replaceVersioned } from '../../store/versioned.js';
import { NoQuery } from './common.js';
import { declarationsOf, type Deferred, type Group, type OperationContext } from './operation.js';
import { once } from '../../domain/validation.js';

/**
 * Organisation and system context share one shape and one behaviour; this factory declares the
 * GET and PATCH of each, so that the rules live in one place. Each group declares its own pair in
 * its own module (organisation-context.ts, system-context.ts), so that neither group's function
 * bundles the other's.
 */
interface ContextTarget<P extends z.ZodType> {
  name: 'Organisation' | 'System';
  group: Group;
  path: string;
  params: Deferred<P>;
  definition: ContextDefinition;
  /** The owner record (404 when absent) and the context item, read in the authentication round trip. */
  ownerKey: (params: z.output<P>) => Key;
  contextKey: (params: z.output<P>) => Key;
  /** Writes that follow a change of an applicability field (system context only). */
  onApplicabilityChange?: (params: z.output<P>, ctx: OperationContext) => WriteItem[];
}

export function contextOperations<P extends z.ZodType>(t: ContextTarget<P>) {
  const Response = once(() => contextResponseSchema(`${t.name}Context`));
  const kind = `${t.name.toLowerCase()}-context`;
  const read = (ctx: OperationContext, params: z.output<P>) => {
    if (!ctx.prefetched(t.ownerKey(params))) throw notFound();
    const context = asContext(ctx.prefetched(t.contextKey(params)));
    return { context, version: context?.version ?? 0, data: completeData(t.definition, context?.data) };
  };
  const ownerId = (params: z.output<P>) => t.contextKey(params).PK.split('#')[1]!;
  const prefetch = (params: z.output<P>) => [t.ownerKey(params), t.contextKey(params)];

  const get = declarationsOf(t.group)({
    id: `get${t.name}Context`,
    method: 'GET',
    path: t.path,
    summary: `Read the canonical ${t.name.toLowerCase()} context: its definition (field IDs, option values, version) and data.`,
    description:
      'Every field of the definition is present in data, null when not yet set; a context never written reads as version 0, whose ETag the first PATCH names in If-Match.',
    credential: ['organisation'],
    permission: { organisation: [['manage-org-hierarchy']] },
    success: 200,
    params: t.params,
    query: NoQuery,
    response: Response,
    etag: true,
    sideEffects: [],
    prefetch,
    handle: async (ctx, { params }) => {
      const { context, version } = read(ctx, params);
      return { data: contextView(t.definition, context), etag: etagFor(kind, ownerId(params), version) };
    },
  });

  const update = declarationsOf(t.group)({
    id: `update${t.name}Context`,
    method: 'PATCH',
    path: t.path,
    summary: `Change ${t.name.toLowerCase()} context fields (merged per field) with an optional edit reason, If-Match the context ETag.`,
    description:
      `Only fields of the definition are taken, each with a value its type or options allow; null clears a field, and the edit reason and the changed field IDs go to the audit record. ${
        t.onApplicabilityChange
          ? `A change to a field that recommendations read (affects_applicability in the definition) marks the applicability of the ${t.name.toLowerCase()}'s projects for recalculation and queues the job: project health shows recalculation pending until it has run, then idle.`
          : ''
      }`.trim(),
    credential: ['organisation'],
    permission: { organisation: [['manage-org-hierarchy']] },
    success: 200,
    params: t.params,
    query: NoQuery,
    body: { schema: () => contextPatchSchema(t.definition, `${t.name}Context`), mediaType: 'application/merge-patch+json' },
    response: Response,
    etag: true,
    ifMatch: true,
    sideEffects: t.onApplicabilityChange
      ? [
          'Updates the context',
          `Marks applicability of the ${t.name.toLowerCase()} projects for recalculation and queues the recalculation job`,
          'Writes an audit record with the edit reason',
        ]
      : ['Updates the context', 'Writes an audit record with the edit reason'],
    prefetch,
    handle: async (ctx, { params, body }) => {
      const { version, data } = read(ctx, params);
      requireIfMatch(ctx.ifMatch, etagFor(kind, ownerId(params), version));
      const patch = body.data as Record<string, string | null | undefined>;
      const changed = changedFields(data, patch);
      const next: ContextData = { ...data };
      for (const [id, value] of Object.entries(patch)) if (value !== undefined) next[id] = value;
      const item = {
        ...t.contextKey(params),
        entity: kind,
        definition_version: t.definition.version,
        data: next,
        updated_at: ctx.now.toISOString(),
        updated_by: ctx.caller.userId,
      };
      const writes = [replaceVersioned(item, version)];
      const recalculate = t.onApplicabilityChange && affectsApplicability(t.definition, changed);
      if (recalculate) writes.push(...t.onApplicabilityChange!(params, ctx));
      return {
        data: contextView(t.definition, item),
        etag: etagFor(kind, ownerId(params), version + 1),
        writes,
        auditDetails: { edit_reason: body.edit_reason ?? null, changed_fields: changed.join(',') },
      };
    },
  });
  return [get, update] as const;
}

/**
 * Seed: system context changes recalculate applicability for the system's projects; an
 * organisation field that recommendations read (outsourced delivery) does so for all its projects.
 */
export function requestRecalculation(subject: RecalculationSubject, organisationId: string, ctx: OperationContext): WriteItem[] {
  return [
    recalculationMarker({
      subject,
      organisationId,
      userId: ctx.caller.userId,
      tokenId: ctx.caller.tokenId,
      authority: { scope: { kind: 'organisation', id: organisationId }, permissions: ['manage-org-hierarchy'] },
      now: ctx.now,
    }),
  ];
}
