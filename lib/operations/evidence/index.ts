import { evidenceItemOperations } from './evidence.js';
import { evidenceLinkOperations } from './links.js';
import { evidenceProcessingOperations } from './processing.js';
import { evidenceUploadOperations } from './uploads.js';
import { getEvidenceVersion } from './versions.js';
import type { AnyOperation } from '../kernel/operation.js';

/** What the evidence function serves: a control's evidence items, their files and links. */
export const operations: readonly AnyOperation[] = [
  ...evidenceItemOperations,
  ...evidenceUploadOperations,
  ...evidenceProcessingOperations,
  ...evidenceLinkOperations,
  getEvidenceVersion,
];
