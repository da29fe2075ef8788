import { downloadDocument } from '../documents/file.js';
import { downloadEvidence, getEvidenceContent } from '../evidence/content.js';
import { downloadEvidenceVersion } from '../evidence/version-file.js';
import { getOrganisationLogoFile } from '../organisations/logo-file.js';
import { getProjectNetworkDiagramFile, getSetupNetworkDiagramFile } from '../setup-projects/network-diagram-file.js';
import { downloadProviderArtefact } from '../providers/artefact-file.js';
import type { AnyOperation } from '../kernel/operation.js';

/** What the downloads function serves: every operation that answers a file, whatever its group, with streamed responses (DESIGN.md section 8). */
export const operations: readonly AnyOperation[] = [
  getOrganisationLogoFile,
  getSetupNetworkDiagramFile,
  getProjectNetworkDiagramFile,
  getEvidenceContent,
  downloadEvidence,
  downloadEvidenceVersion,
  downloadDocument,
  downloadProviderArtefact,
];
