import { artefactAssertionOperations } from './artefact-assertions.js';
import { assertionOperations } from './assertions.js';
import { assuranceReleaseOperations } from './releases.js';
import { listExternalProviderOptions } from './options.js';
import { providerArtefactOperations } from './artefacts.js';
import { providerOperations } from './providers.js';
import { uploadReleaseArtefacts } from './release-artefacts.js';
import type { AnyOperation } from '../kernel/operation.js';

/** What the providers function serves: shared external providers, their assurance releases, artefacts, the review of their assertions and the options projects select from. */
export const operations: readonly AnyOperation[] = [
  listExternalProviderOptions,
  ...providerOperations,
  ...assuranceReleaseOperations,
  ...providerArtefactOperations,
  uploadReleaseArtefacts,
  ...assertionOperations,
  ...artefactAssertionOperations,
];
