import { evidenceItemOperations } from '../evidence.js';
import { evidenceLinkOperations } from '../evidence-links.js';
import { evidenceProcessingOperations } from '../evidence-processing.js';
import { evidenceUploadOperations } from '../evidence-uploads.js';
import { getEvidenceVersion } from '../evidence-versions.js';
import type { AnyOperation } from '../operation.js';

/** What the evidence function serves: a control's evidence items, their files and links. */
export const operations = [
  ...evidenceItemOperations,
  ...evidenceUploadOperations,
  ...evidenceProcessingOperations,
  ...evidenceLinkOperations,
  getEvidenceVersion,
] as unknown as readonly AnyOperation[];
