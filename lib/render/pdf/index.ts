import type { DocumentKey } from '../../domain/documents.js';
import type { Renderer } from '../renderer.js';
import { assessmentReportRenderer } from './assessment-report.js';
import { e8AssessmentRenderer } from './e8-assessment.js';
import { sspRenderer } from './ssp.js';

export { assessmentReportRenderer, e8AssessmentRenderer, sspRenderer };

/** The PDF templates of the document catalogue, by document key. */
export const PDF_RENDERERS = {
  ssp: sspRenderer,
  'e8-assessment': e8AssessmentRenderer,
  'security-assessment-report': assessmentReportRenderer,
} as const satisfies Partial<Record<DocumentKey, Renderer>>;
