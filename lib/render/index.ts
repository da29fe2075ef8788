import type { DocumentKey } from '../domain/documents.js';
import { controlsJsonRenderer } from './json/controls.js';
import { oscalAssessmentResultsRenderer } from './oscal/assessment-results.js';
import { oscalPoamRenderer } from './oscal/poam.js';
import { oscalSspRenderer } from './oscal/ssp.js';
import { PDF_RENDERERS } from './pdf/index.js';
import type { Renderer } from './renderer.js';
import { soaRenderer } from './xlsx/soa.js';

/** Each template of the document catalogue, by its stable key. */
const RENDERERS: Readonly<Record<DocumentKey, Renderer>> = {
  ...PDF_RENDERERS,
  soa: soaRenderer,
  'controls-json': controlsJsonRenderer,
  'oscal-ssp': oscalSspRenderer,
  'oscal-assessment-results': oscalAssessmentResultsRenderer,
  'oscal-poam': oscalPoamRenderer,
};

export const rendererFor = (key: DocumentKey): Renderer => RENDERERS[key];
