import * as z from 'zod';
import {
  emptySummary,
  emptyWorkingCopy,
  LibraryItem,
  LibraryItemSummary,
  libraryItemView,
  librarySummaryView,
  UpdateLibraryItem,
  workingCopyErrors,
  type StoredWorkingCopy,
} from '../../domain/library.js';
import { LIBRARY_DEFINITIONS, libraryDefinitionById, type LibraryDefinition } from '../../domain/library-definitions.js';
import { notFound, validationFailed } from '../../errors.js';
import { keys } from '../../store/keys.js';
import { assembled, rereadWorkingCopy, workingCopyKeys, workingCopySummaries, writeWorkingCopy } from '../../store/library.js';
import { isActiveMember } from '../../store/members.js';
import { NoQuery, Ulid } from '../kernel/common.js';
import { etagFor, requireIfMatch } from '../kernel/etag.js';
import type { OperationContext } from '../kernel/operation.js';
import { operation } from './declare.js';
import type { StoredProject } from '../../domain/projects.js';
import { boundProjectOf, ProjectParams, projectStillEditable, requireEditable } from '../projects/access.js';
import { once } from '../../domain/validation.js';

const ETAG_KIND = 'library-item';
const BASE = '/projects/{project}/library';
const ItemParams = once(() => ProjectParams().extend({ definition: Ulid }));
type ItemParams = z.output<ReturnType<typeof ItemParams>>;

/** The ETag names the project too: every project's never-written copy is version 0, and one project's must not validate in another. */
const etagOf = (w: StoredWorkingCopy) => etagFor(ETAG_KIND, `${w.project_id}/${w.definition_id}`, w.version);

const itemPrefetch = (p: ItemParams) => [keys.project(p.project), ...(libraryDefinitionById(p.definition) ? workingCopyKeys(p.project, p.definition) : [])];

/**
 * The definition and the project's working copy of it, both items read with authentication (read
 * again in the rare case a concurrent edit landed between them); an empty version-0 copy when none
 * is written yet (GET never writes one).
 */
async function itemOf(ctx: OperationContext, p: ItemParams): Promise<{ project: StoredProject; definition: LibraryDefinition; current: StoredWorkingCopy }> {
  const project = boundProjectOf(ctx, p.project);
  const definition = libraryDefinitionById(p.definition);
  if (!definition) throw notFound();
  const empty = emptyWorkingCopy(project.id, definition.id);
  const item = ctx.prefetched(keys.libraryItem(project.id, definition.id));
  if (!item) return { project, definition, current: empty };
  const current = assembled(item, ctx.prefetched(keys.libraryContent(project.id, definition.id))) ?? (await rereadWorkingCopy(project.id, definition.id));
  return { project, definition, current: current ?? empty };
}

export const listLibrary = operation({
  id: 'listLibrary',
  method: 'GET',
  path: BASE,
  summary: "Every library definition with a summary of the project's working copy of it (no content).",
  description: 'A finite catalogue, in catalogue order. Definitions without a working copy show empty fields; listing never creates one.',
  credential: ['project'],
  permission: { project: [['view-controls']] },
  success: 200,
  params: ProjectParams,
  query: NoQuery,
  response: () => z.array(LibraryItemSummary()),
  sideEffects: [],
  prefetch: ({ project }) => [keys.project(project)],
  handle: async (ctx, { params }) => {
    const project = boundProjectOf(ctx, params.project);
    const copies = await workingCopySummaries(project.id);
    return { data: LIBRARY_DEFINITIONS.map((d) => librarySummaryView(d, copies.get(d.id) ?? emptySummary(params.project, d.id))) };
  },
});

export const getLibraryItem = operation({
  id: 'getLibraryItem',
  method: 'GET',
  path: `${BASE}/{definition}`,
  summary: "A library definition with the project's working copy and its ETag, also before the first edit.",
  description: 'Without a working copy the fields are empty and the ETag is the version-0 one, which the first PATCH names in If-Match.',
  credential: ['project'],
  permission: { project: [['view-controls']] },
  success: 200,
  params: ItemParams,
  query: NoQuery,
  response: LibraryItem,
  etag: true,
  sideEffects: [],
  prefetch: itemPrefetch,
  handle: async (ctx, { params }) => {
    const { definition, current } = await itemOf(ctx, params);
    return { data: libraryItemView(definition, current), etag: etagOf(current) };
  },
});

export const updateLibraryItem = operation({
  id: 'updateLibraryItem',
  method: 'PATCH',
  path: `${BASE}/{definition}`,
  summary: "Edit the project's working copy of a library definition (JSON merge patch, If-Match).",
  description:
    'content_markdown is kept exactly as sent once it passes the Markdown policy (422 markdown_attribute_not_allowed, markdown_element_not_allowed, markdown_html_construct_not_allowed, markdown_link_scheme_not_allowed) and the size budget (422 content_too_large). owner_user_id must be an active organisation member (422 owner_not_member); review_due must not precede date_live as the patched copy has them (422 review_due_before_date_live). An archived project refuses edits (403 project_archived).',
  credential: ['project'],
  permission: { project: [['edit-control-implementation', 'view-controls']] },
  success: 200,
  params: ItemParams,
  query: NoQuery,
  body: { schema: UpdateLibraryItem, mediaType: 'application/merge-patch+json' },
  response: LibraryItem,
  etag: true,
  ifMatch: true,
  sideEffects: ['Writes the working copy (the first edit creates it)', 'Writes an audit record'],
  prefetch: itemPrefetch,
  handle: async (ctx, { params, body }) => {
    const { project, definition, current } = await itemOf(ctx, params);
    requireEditable(project);
    requireIfMatch(ctx.ifMatch, etagFor(ETAG_KIND, `${current.project_id}/${current.definition_id}`, current.version));
    const merged = { ...current, ...body };
    const errors = await workingCopyErrors(body, merged);
    const owner = body.owner_user_id;
    if (owner && !(await isActiveMember(project.organisation_id, owner))) {
      errors.push({ pointer: '/owner_user_id', code: 'owner_not_member', detail: 'is not an active member of the organisation (see GET …/document-owners)' });
    }
    if (errors.length) throw validationFailed(errors);
    const version = current.version + 1;
    const contentChanged = body.content_markdown !== undefined;
    const next: StoredWorkingCopy = {
      ...merged,
      updated_at: ctx.now.toISOString(),
      updated_by: ctx.caller.userId,
      version,
      content_version: contentChanged ? (merged.content_markdown === null ? 0 : version) : current.content_version,
    };
    return {
      data: libraryItemView(definition, next),
      etag: etagOf(next),
      writes: [...writeWorkingCopy(next, current.version, contentChanged), projectStillEditable(params.project)],
      auditTarget: { project: params.project, definition: definition.id },
      auditDetails: { changed_fields: Object.keys(body).join(',') },
    };
  },
});

export const libraryOperations = [listLibrary, getLibraryItem, updateLibraryItem];
