import * as z from 'zod';
import { notFound } from '../../errors.js';
import { keys } from '../../store/keys.js';
import { memberCount, membersPage } from '../../store/members.js';
import { PageQuery } from '../kernel/common.js';
import { operation } from './declare.js';
import { boundProjectOf, ProjectParams } from '../projects/access.js';
import { once } from '../../domain/validation.js';

const DocumentOwner = once(() =>
  z.object({ id: z.string(), name: z.string() }).meta({ id: 'DocumentOwner', description: 'An active member of the organisation.' }),
);

export const listDocumentOwners = operation({
  id: 'listDocumentOwners',
  method: 'GET',
  path: '/projects/{project}/document-owners',
  summary: "The organisation's active members, who may own library items and documents: identifier and name, by identifier.",
  description:
    "Members are active users with live access in the project's organisation, at the organisation or at any of its projects. The total is exact: a user disabled or deleted, or whose last access there is revoked, leaves the list and the total at once.",
  credential: ['project'],
  permission: { project: [['view-controls']] },
  success: 200,
  params: ProjectParams,
  query: PageQuery,
  response: () => z.array(DocumentOwner()),
  paginated: true,
  sideEffects: [],
  // A project credential is bound to the project's organisation, so its counters come in the same round trip.
  prefetch: ({ project }, claims) => [keys.project(project), ...(claims.organisationId ? [keys.organisationCounters(claims.organisationId)] : [])],
  handle: async (ctx, { params }) => {
    const project = boundProjectOf(ctx, params.project);
    if (project.organisation_id !== ctx.caller.organisationId) throw notFound();
    const page = await membersPage(project.organisation_id, ctx.page);
    return { data: page, total: memberCount(ctx.prefetched(keys.organisationCounters(project.organisation_id))) };
  },
});
