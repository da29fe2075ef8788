import * as z from 'zod';
import { acceptUpload, ownerShows } from '../../files/accept.js';
import { consumeSessionWrite } from '../../files/sessions.js';
import { etagFor, requireIfMatch } from '../kernel/etag.js';
import { notFound } from '../../errors.js';
import { keys } from '../../store/keys.js';
import type { FileOwner } from '../../store/file-owners.js';
import { replaceVersioned } from '../../store/versioned.js';
import { NoQuery, OrganisationParams } from '../kernel/common.js';
import { formFile, uploadBody, uploadDescription, uploadSessionOperation } from '../kernel/upload-form.js';
import { currentLogo, LOGO_FILE_PATH, LOGO_PATH, prefetch } from './logo-access.js';
import { operation } from './declare.js';
import { apiUrl } from '../../domain/api-paths.js';
import { urlOf } from '../kernel/router.js';
import { once } from '../../domain/validation.js';

const ETAG_KIND = 'organisation-logo';

export const Logo = once(() =>
  z
    .object({
      status: z.enum(['quarantine', 'ready', 'error']).nullable().meta({ description: 'null while the organisation has no logo.' }),
      error_code: z.string().nullable(),
      file_name: z.string().nullable(),
      content_type: z.string().nullable(),
      size: z.number().int().nullable(),
      width: z.number().int().nullable(),
      height: z.number().int().nullable(),
      uploaded_at: z.string().nullable(),
      file_url: z.string().nullable().meta({ description: 'Where a ready logo is downloaded.' }),
    })
    .meta({ id: 'OrganisationLogo' }),
);

function logoView(organisation: string, item: FileOwner | undefined): z.infer<ReturnType<typeof Logo>> {
  const status = item?.file_status ?? null;
  return {
    status,
    error_code: item?.error_code ?? null,
    file_name: item?.file_name ?? null,
    content_type: item?.detected_type ?? null,
    size: item?.size ?? null,
    width: item?.width ?? null,
    height: item?.height ?? null,
    uploaded_at: item?.uploaded_at ?? null,
    file_url: status === 'ready' ? apiUrl(LOGO_FILE_PATH, { organisation }) : null,
  };
}

export const getOrganisationLogo = operation({
  id: 'getOrganisationLogo',
  method: 'GET',
  path: LOGO_PATH,
  summary: 'The logo status (quarantine, then ready or error) and its ETag; poll after an upload.',
  description:
    'After an upload the status is quarantine until the scan ends: ready (with dimensions and file_url) or error with error_code (a refused type, size or image, or a malicious verdict). All properties are null while the organisation has no logo. The ETag is the one the next upload names in If-Match.',
  credential: ['organisation'],
  permission: { organisation: [['manage-org-hierarchy']] },
  success: 200,
  params: OrganisationParams,
  query: NoQuery,
  response: Logo,
  etag: true,
  sideEffects: [],
  prefetch,
  handle: async (ctx, { params }) => {
    const { item, version } = currentLogo(ctx, params.organisation);
    return { data: logoView(params.organisation, item), etag: etagFor(ETAG_KIND, params.organisation, version) };
  },
});

export const uploadOrganisationLogo = operation({
  id: 'uploadOrganisationLogo',
  method: 'POST',
  path: LOGO_PATH,
  summary: 'Upload a logo (PNG, JPEG or WebP): 201 means accepted into quarantine; poll the logo until ready or error.',
  description: `${uploadDescription('organisation-logo')} Poll getOrganisationLogo until the status is ready or error.`,
  credential: ['organisation'],
  permission: { organisation: [['manage-org-hierarchy']] },
  success: 201,
  params: OrganisationParams,
  query: NoQuery,
  body: uploadBody('logo file'),
  response: Logo,
  etag: true,
  idempotencyKey: true,
  ifMatch: true,
  sideEffects: ['Stores the file in quarantine and queues its scan', 'Replaces the organisation logo', 'Writes an audit record'],
  uses: { files: true },
  prefetch,
  handle: async (ctx, { params, body }) => {
    const { version } = currentLogo(ctx, params.organisation);
    requireIfMatch(ctx.ifMatch, etagFor(ETAG_KIND, params.organisation, version));
    const { file, session } = await formFile(ctx, body, 'organisation-logo', { organisationId: params.organisation });
    const { upload, writes } = await acceptUpload({
      profile: 'organisation-logo',
      owner: keys.organisationLogo(params.organisation),
      organisationId: params.organisation,
      userId: ctx.caller.userId,
      tokenId: ctx.caller.tokenId,
      authority: { scope: { kind: 'organisation', id: params.organisation }, permissions: ['manage-org-hierarchy'] },
      file,
      ...(session ? { session } : {}),
      now: ctx.now,
    });
    const logo = { ...ownerShows(upload, ctx.caller.userId, ctx.now), version: version + 1 };
    return {
      data: logoView(params.organisation, logo),
      etag: etagFor(ETAG_KIND, params.organisation, version + 1),
      location: urlOf(getOrganisationLogo, params),
      auditTarget: { organisation: params.organisation, upload: upload.id },
      writes: [
        ...writes,
        replaceVersioned({ ...keys.organisationLogo(params.organisation), entity: 'organisation-logo', ...logo }, version),
        ...(session ? [consumeSessionWrite(session.id)] : []),
      ],
    };
  },
});

export const createOrganisationLogoUploadSession = uploadSessionOperation({
  id: 'createOrganisationLogoUploadSession',
  group: 'organisations',
  path: `${LOGO_PATH}/upload-sessions`,
  params: OrganisationParams,
  profile: 'organisation-logo',
  what: 'logo',
  takenBy: 'uploadOrganisationLogo',
  permission: { organisation: [['manage-org-hierarchy']] },
  prefetch: ({ organisation }) => [keys.organisation(organisation)],
  target: (ctx, { organisation }) => {
    if (!ctx.prefetched(keys.organisation(organisation))) throw notFound();
    return { organisationId: organisation };
  },
});

export const logoOperations = [getOrganisationLogo, uploadOrganisationLogo, createOrganisationLogoUploadSession];
