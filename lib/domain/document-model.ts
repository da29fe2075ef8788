import type { JoinedControl, StoredControl } from './controls.js';
import type { Classification } from './classifications.js';
import type { DocumentKey } from './documents.js';
import { statusOf, type StoredEvidence } from './evidence.js';
import { citationOf, type EvidenceCitation } from './evidence-capture.js';
import type { Responsibility } from './imports/rows.js';
import type { CatalogueEntry } from './oscal.js';

/**
 * Everything a generated document may show, gathered by the generation job from one project before
 * any renderer runs. Renderers read nothing else: no table, no bucket, no network. What the
 * generation options leave out (implementation notes, assessor notes) is already null here, so a
 * renderer cannot leak it.
 */
export interface DocumentModel {
  document: {
    key: DocumentKey;
    title: string;
    /** A draft carries the DRAFT watermark on every page; final output carries the approval. */
    output: 'draft' | 'final';
    generation_id: string;
    generated_at: string;
    generated_by: Person;
    approved_by: Person | null;
    approved_at: string | null;
  };
  options: {
    draft_watermark: boolean;
    show_implementation_notes: boolean;
    show_assessor_notes: boolean;
  };
  /** The protective marking of every page: the project's classification. */
  marking: { code: Classification; name: string };
  organisation: { id: string; name: string };
  system: { id: string; name: string; short_code: string; description: string | null };
  project: {
    id: string;
    name: string;
    description: string | null;
    classification: Classification;
    essential_eight_target: 'none' | 'ML1' | 'ML2' | 'ML3';
  };
  /** `sample` for the sample catalogue this product ships, which is not the ISM and has no ASD address. */
  release: { id: string; version: string; title: string; published: string | null; sample: boolean };
  /** The project's saved scope data (ScopeData), as stored. */
  scope: Record<string, unknown>;
  /** Context answers of the organisation and the system, by question key. */
  context: { organisation: Record<string, unknown>; system: Record<string, unknown> };
  /** The allowlisted engagement fields (engagement reference, client, assessor organisation, lead assessor, dates). */
  engagement: Record<string, string | null>;
  /** Every control of the project, in catalogue order. */
  controls: DocumentControl[];
  /** A summary of each register of the project (project-owned and those shared to it). */
  registers: DocumentRegister[];
  /** Only the project's registered network diagram and its organisation's logo, each when ready. */
  images: { logo: DocumentImage | null; diagram: DocumentImage | null };
  /**
   * Where the installation is reached: its public origin and stage path prefix, without a trailing
   * slash (`https://assess.example.gov.au`). Documents link to the API under it.
   */
  public_url: string;
  /** The selected provider releases whose assertions some control shows, as provider guidance names them. */
  provider_releases: DocumentProviderRelease[];
  /** The rows of the project's plan of action and milestones (the `poam` register), oldest first. */
  poam: DocumentPoamRow[];
  /** The rows of the project's risk register, oldest first. */
  risks: DocumentRiskRow[];
  /** The last completed output of each document the project has generated before this one, oldest first. */
  versions: DocumentVersion[];
  /** The system's active contacts, by name. */
  contacts: DocumentContact[];
  /** The project's working copies of the library's plans and procedures that have been written, in library order. */
  related_plans: DocumentPlan[];
}

/** A document output the project holds: which document, when, by whom, and its approval. */
export interface DocumentVersion {
  key: DocumentKey;
  title: string;
  generation_id: string;
  output: 'draft' | 'final';
  generated_at: string;
  generated_by: Person;
  approved_by: Person | null;
  approved_at: string | null;
}

export interface DocumentContact {
  id: string;
  name: string;
  role: string | null;
  email: string | null;
  phone: string | null;
  organisation_name: string | null;
}

export interface DocumentPlan {
  key: string;
  title: string;
  kind: 'policy' | 'procedure';
  date_live: string | null;
  review_due: string | null;
  updated_at: string | null;
}

/** A contact a register row names, with the contact's name when it still exists. */
export interface DocumentContactRef {
  id: string;
  name: string | null;
}

/** A risk register row with its columns typed; `related_control` is as the row holds it (a control ULID or ISM-1234). */
export interface DocumentRiskRow {
  id: string;
  risk_id: string;
  title: string;
  description: string | null;
  likelihood: string | null;
  consequence: string | null;
  inherent_rating: string | null;
  treatment: string | null;
  residual_rating: string | null;
  risk_owner: DocumentContactRef | null;
  related_control: string | null;
  status: string;
  review_due: string | null;
}

export interface DocumentProviderRelease {
  provider_id: string;
  provider_name: string;
  release_id: string;
  release_name: string;
  release_version: string;
  /** When the provider's assessment took place, if the release records it. */
  assessed_on: string | null;
  /** The day the release was published (selected releases are published). */
  published_on: string | null;
}

/** A POA&M register row with its columns typed; `related_control` is as the row holds it (a control ULID or ISM-1234). */
export interface DocumentPoamRow {
  id: string;
  item_id: string;
  weakness: string;
  related_control: string | null;
  severity: string | null;
  milestone: string | null;
  /** The contact the row names as responsible, with the contact's name when it still exists. */
  responsible: DocumentContactRef | null;
  resources_required: string | null;
  scheduled_completion: string | null;
  status: string;
  completed_on: string | null;
  created_at: string;
  updated_at: string;
}

export interface Person {
  id: string;
  name: string;
}

export interface DocumentImage {
  media_type: 'image/png' | 'image/jpeg';
  bytes: Uint8Array;
  width: number | null;
  height: number | null;
}

/** What a document shows of a control as the project holds it (ids, catalogue text, applicability, implementation). */
export const DOCUMENT_CONTROL_FIELDS = [
  'id',
  'catalogue_id',
  'label',
  'kind',
  'title',
  'statement',
  'path',
  'position',
  'classifications',
  'essential_eight',
  'applicability',
  'applicability_origin',
  'applicability_comment',
  'implementation_status',
  'implementation_summary',
  'implementation_description',
  'workflow_state',
] as const satisfies readonly (keyof JoinedControl)[];

/** A control as documents read it: `catalogue_id` is the OSCAL id (ism-1691), `label` what people call it (ISM-1691), `path` guideline, section and topic. */
export interface DocumentControl extends Pick<JoinedControl, (typeof DOCUMENT_CONTROL_FIELDS)[number]>, Pick<CatalogueEntry, 'revision' | 'updated'> {
  /** The implementer's own claims to the assessor; null unless show_implementation_notes. */
  implementation_notes: { proposed_outcome: string | null; proposed_rationale: string | null; proposed_maturity: string | null } | null;
  assessment: {
    outcome: string | null;
    rationale: string | null;
    severity: string | null;
    maturity_level: string | null;
    evidence_references: string[];
    /** Null unless show_assessor_notes. */
    assessor_notes: string | null;
  };
  evidence: DocumentEvidence[];
  provider_guidance: { provider_id: string; release_id: string; responsibility: Responsibility; guidance: string }[];
  /** The catalogue entry's revision and the day the ISM last updated it, when the catalogue records them. */
  revision: number | null;
  updated: string | null;
  /** What the applicability rules recommended and why (the rules' reasons); null where no rule spoke. */
  recommendation: { value: 'y' | 'n'; reasons: string[] } | null;
}

export interface DocumentEvidence {
  id: string;
  kind: string;
  title: string;
  evidence_type: string | null;
  status: string;
  /** Why a file item failed (empty_file, malware_detected, …); null unless its status is error. */
  error_code: string | null;
  /**
   * What the control's evidence capture made of the item: only `pinned` carries a digest, the one
   * the capture recorded. A renderer cites nothing else as pinned.
   */
  citation: EvidenceCitation;
  collected_on: string | null;
  updated_at: string;
}

export interface DocumentRegister {
  key: string;
  title: string;
  owner: 'project' | 'system' | 'organisation';
  rows: number;
}

/** An evidence item as a document cites it: only what the control’s evidence capture pinned is cited as pinned. */
export function documentEvidence(e: StoredEvidence, snapshot: StoredControl['evidence_snapshot']): DocumentEvidence {
  const status = statusOf(e);
  return {
    id: e.id,
    kind: e.kind,
    title: e.title,
    evidence_type: e.evidence_type ?? null,
    status,
    error_code: status === 'error' ? (e.error_code ?? 'unavailable') : null,
    citation: citationOf({ id: e.id, kind: e.kind, status, sha256: e.sha256 ?? null }, snapshot),
    collected_on: e.collected_on ?? null,
    updated_at: e.updated_at,
  };
}

/** A control as documents show it, with the generation’s options applied: the notes they leave out are null here. */
export function documentControl(
  c: JoinedControl,
  evidence: StoredEvidence[],
  options: { show_implementation_notes: boolean; show_assessor_notes: boolean },
  entry: CatalogueEntry | undefined,
): DocumentControl {
  return {
    ...(Object.fromEntries(DOCUMENT_CONTROL_FIELDS.map((f) => [f, c[f]])) as Pick<JoinedControl, (typeof DOCUMENT_CONTROL_FIELDS)[number]>),
    // The catalogue's own revision and last change of the control's text (a release never changes).
    revision: entry?.revision ?? null,
    updated: entry?.updated ?? null,
    implementation_notes: options.show_implementation_notes
      ? {
          proposed_outcome: c.overall_proposed_outcome ?? null,
          proposed_rationale: c.overall_proposed_rationale ?? null,
          proposed_maturity: c.maturity_proposed_level ?? null,
        }
      : null,
    assessment: {
      outcome: c.overall_assessed_outcome ?? null,
      rationale: c.overall_assessed_rationale ?? null,
      severity: c.finding_severity ?? null,
      maturity_level: c.maturity_assessed_level ?? null,
      evidence_references: c.evidence_references ?? [],
      assessor_notes: options.show_assessor_notes ? (c.assessor_notes ?? null) : null,
    },
    evidence: evidence.map((e) => documentEvidence(e, c.evidence_snapshot)),
    // Documents reach everyone who may download them: restricted provider material stays out.
    provider_guidance: c.provider_guidance.flatMap((g) =>
      g.restricted || g.guidance === null
        ? []
        : [{ provider_id: g.provider_id, release_id: g.release_id, responsibility: g.responsibility, guidance: g.guidance }],
    ),
    recommendation: c.recommendation ? { value: c.recommendation.value, reasons: c.recommendation.reasons } : null,
  };
}
