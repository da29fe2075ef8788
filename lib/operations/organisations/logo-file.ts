import * as z from 'zod';
import { readyFile } from '../../files/accept.js';
import { PROFILES } from '../../files/profiles.js';
import { notFound } from '../../errors.js';
import { NoQuery, OrganisationParams } from '../kernel/common.js';
import { currentLogo, LOGO_FILE_PATH, prefetch } from './logo-access.js';
import { operation } from './declare.js';

const PROFILE = PROFILES['organisation-logo'];

export const getOrganisationLogoFile = operation({
  id: 'getOrganisationLogoFile',
  method: 'GET',
  path: LOGO_FILE_PATH,
  summary: 'The ready logo file (private, no-store); 404 while it is in quarantine, failed or missing.',
  description: 'Streams the scanned, ready logo as PNG, JPEG or WebP, private and never cached (Cache-Control private, no-store).',
  credential: ['organisation'],
  permission: { organisation: [['manage-org-hierarchy']] },
  success: 200,
  params: OrganisationParams,
  query: NoQuery,
  response: () => z.never(),
  produces: PROFILE.types,
  uses: { files: true },
  sideEffects: [],
  prefetch,
  handle: async (ctx, { params }) => {
    const file = await readyFile(currentLogo(ctx, params.organisation).item);
    if (!file) throw notFound('The logo is not ready.');
    return { data: undefined as never, file };
  },
});
