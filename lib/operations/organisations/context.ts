import { ORGANISATION_CONTEXT } from '../../domain/context.js';
import { keys } from '../../store/keys.js';
import { OrganisationParams } from '../kernel/common.js';
import { contextOperations, requestRecalculation } from '../kernel/contexts.js';

export const [getOrganisationContext, updateOrganisationContext] = contextOperations({
  name: 'Organisation',
  group: 'organisations',
  path: '/organisations/{organisation}/context',
  params: OrganisationParams,
  definition: ORGANISATION_CONTEXT,
  ownerKey: (p) => keys.organisation(p.organisation),
  contextKey: (p) => keys.organisationContext(p.organisation),
  onApplicabilityChange: (p, ctx) => requestRecalculation({ organisation_id: p.organisation }, p.organisation, ctx),
});

export const organisationContextOperations = [getOrganisationContext, updateOrganisationContext];
