import type { DocumentControl, DocumentModel } from '../../domain/document-model.js';
import { each, writeJson } from '../json-stream.js';
import type { Renderer } from '../renderer.js';

/** The name of this export's shape; consumers check it with the version before reading. */
export const CONTROLS_FORMAT = 'assessment-operations-api/controls';
/**
 * Semantic version of the shape: a new optional member moves the minor version, a removed or
 * retyped member the major version.
 */
export const CONTROLS_FORMAT_VERSION = '1.1.0';

/**
 * One control of the export. Codes are the API's own (applicability `y`/`n`, origin, status,
 * workflow state, outcome, severity), so that the export and the API read alike. Implementation
 * notes and assessor notes are null when the generation options left them out.
 */
export interface ExportedControl {
  id: string;
  /** OSCAL id in the ISM catalogue, such as ism-1691. */
  catalogue_id: string;
  label: string;
  kind: 'control' | 'principle';
  title: string;
  statement: string;
  guideline: string | null;
  section: string | null;
  topic: string | null;
  position: number;
  classifications: string[];
  essential_eight: string[];
  applicability: { value: 'y' | 'n'; origin: string; comment: string | null };
  implementation: {
    status: string | null;
    summary: string | null;
    description: string | null;
    notes: DocumentControl['implementation_notes'];
  };
  workflow_state: string;
  assessment: DocumentControl['assessment'];
  evidence: DocumentControl['evidence'];
  provider_guidance: DocumentControl['provider_guidance'];
}

/** The export: its format, the generation that wrote it, what it describes, and every control in catalogue order. */
export interface ControlsExport {
  format: typeof CONTROLS_FORMAT;
  format_version: typeof CONTROLS_FORMAT_VERSION;
  generation: DocumentModel['document'] & { options: DocumentModel['options'] };
  marking: DocumentModel['marking'];
  organisation: DocumentModel['organisation'];
  system: DocumentModel['system'];
  project: DocumentModel['project'];
  release: DocumentModel['release'];
  controls: ExportedControl[];
  /** The number of controls, written last: a truncated file lacks it. */
  control_count: number;
}

function exported(c: DocumentControl): ExportedControl {
  return {
    id: c.id,
    catalogue_id: c.catalogue_id,
    label: c.label,
    kind: c.kind,
    title: c.title,
    statement: c.statement,
    guideline: c.path[0] ?? null,
    section: c.path[1] ?? null,
    topic: c.path[2] ?? null,
    position: c.position,
    classifications: c.classifications,
    essential_eight: c.essential_eight,
    applicability: { value: c.applicability, origin: c.applicability_origin, comment: c.applicability_comment },
    implementation: {
      status: c.implementation_status,
      summary: c.implementation_summary,
      description: c.implementation_description,
      notes: c.implementation_notes,
    },
    workflow_state: c.workflow_state,
    assessment: c.assessment,
    evidence: c.evidence,
    provider_guidance: c.provider_guidance,
  };
}

/** The machine-readable control export (`controls-json`), written control by control. */
export const controlsJsonRenderer: Renderer = {
  format: 'json',
  mediaType: 'application/json',
  extension: 'json',
  async render(model, out) {
    const document: Record<keyof ControlsExport, unknown> = {
      format: CONTROLS_FORMAT,
      format_version: CONTROLS_FORMAT_VERSION,
      generation: { ...model.document, options: model.options },
      marking: model.marking,
      organisation: model.organisation,
      system: model.system,
      project: model.project,
      release: model.release,
      controls: each(model.controls, exported),
      control_count: model.controls.length,
    };
    await writeJson(out, document);
  },
};
