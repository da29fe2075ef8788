import * as z from 'zod';
import { contentDisposition } from '../../domain/evidence-files.js';
import { readyFile } from '../../files/accept.js';
import { PROFILES } from '../../files/profiles.js';
import { notFound } from '../../errors.js';
import { NoQuery } from '../kernel/common.js';
import { operation } from './declare.js';
import { ARTEFACT_PATH, ArtefactParams, artefactOf, artefactPrefetch, HIERARCHY } from './artefact-access.js';

export const downloadProviderArtefact = operation({
  id: 'downloadProviderArtefact',
  method: 'GET',
  path: `${ARTEFACT_PATH}/file`,
  summary:
    'The ready file of an artefact (its file_url), streamed, private and no-store; 404 while pending, after an error, for links, and for restricted artefacts without view-restricted-provider-artefacts.',
  description:
    "Streams the scanned file, private and never cached, always as an attachment named by the artefact's file name. A restricted artefact needs view-restricted-provider-artefacts too (404 without it).",
  credential: ['administration'],
  permission: HIERARCHY,
  success: 200,
  params: ArtefactParams,
  query: NoQuery,
  response: () => z.never(),
  produces: PROFILES['provider-artefact'].types,
  uses: { files: true },
  sideEffects: [],
  prefetch: artefactPrefetch,
  handle: async (ctx, { params }) => {
    const artefact = artefactOf(ctx, params);
    const file = await readyFile(artefact);
    if (!file) throw notFound('The artefact has no ready file.');
    return { data: undefined as never, file: { ...file, disposition: contentDisposition('attachment', artefact.file_name ?? artefact.id) } };
  },
});
