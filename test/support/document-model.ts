import { resolve } from 'node:path';
import { Writable } from 'node:stream';
import { readReleaseDirectory } from '../../lib/catalogue/files.js';
import { CLASSIFICATIONS, type Classification } from '../../lib/domain/classifications.js';
import type { DocumentControl, DocumentEvidence, DocumentModel, DocumentPoamRow, DocumentRiskRow } from '../../lib/domain/document-model.js';
import type { DocumentKey } from '../../lib/domain/documents.js';
import type { ParsedRelease } from '../../lib/domain/oscal.js';
import { png } from './files.js';

export const ISM_RELEASE_DIR = resolve(import.meta.dirname, '../../../shared/data/ism-2025.12.9');

let release: ParsedRelease | undefined;
/** The official ISM release the documents are tested against, read once per test file. */
export const ismRelease = (): ParsedRelease => (release ??= readReleaseDirectory(ISM_RELEASE_DIR));

/**
 * The official release's principles and its first `controls` controls, under a version of their
 * own: real entries for tests that need some controls of the ISM, without the writes of importing
 * its 1,107 entries.
 */
export function ismExcerpt(controls: number): ParsedRelease {
  const full = ismRelease();
  const kept = new Set(full.entries.filter((e) => e.kind === 'control').slice(0, controls));
  return { ...full, version: `${full.version}-first-${controls}`, entries: full.entries.filter((e) => e.kind === 'principle' || kept.has(e)) };
}

const STATUSES = ['implemented', 'partially_implemented', 'planned', 'not_implemented', 'alternate_control', 'ec', null] as const;
const OUTCOMES = ['effective', 'ineffective', 'no_visibility', 'not_implemented', 'effective', null] as const;
const SEVERITIES = ['critical', 'high', 'medium', 'low'] as const;

export interface ModelOptions {
  key?: DocumentKey;
  classification?: Classification;
  essentialEightTarget?: 'none' | 'ML1' | 'ML2' | 'ML3';
  output?: 'draft' | 'final';
  showImplementationNotes?: boolean;
  showAssessorNotes?: boolean;
  /** At most this many controls (all of the classification's by default). */
  limit?: number;
  images?: boolean;
}

/**
 * A realistic model of a project on the real ISM release: every control of the classification,
 * with statuses, implementation texts, assessments, evidence and notes spread deterministically
 * across them, so that every branch of a renderer has rows to show.
 */
export function documentModel(o: ModelOptions = {}): DocumentModel {
  const classification = o.classification ?? 'P';
  const showImplementation = o.showImplementationNotes ?? true;
  const showAssessor = o.showAssessorNotes ?? true;
  const entries = ismRelease().entries.filter((e) => e.kind === 'principle' || e.classifications.includes(classification));
  const chosen = o.limit === undefined ? entries : entries.slice(0, o.limit);
  const controls: DocumentControl[] = chosen.map((e, i) => {
    const applicable = i % 17 !== 5;
    const recommended = i % 34 === 22;
    const status = applicable ? STATUSES[i % STATUSES.length]! : null;
    const outcome = applicable ? OUTCOMES[i % OUTCOMES.length]! : null;
    const failing = outcome === 'ineffective' || outcome === 'no_visibility' || outcome === 'not_implemented';
    return {
      id: `01JCONTROL${String(i).padStart(16, '0')}`,
      catalogue_id: e.id,
      label: e.label,
      kind: e.kind,
      title: e.title,
      statement: e.statement,
      path: e.path,
      position: e.position,
      classifications: e.classifications,
      essential_eight: e.essential_eight,
      revision: e.revision,
      updated: e.updated,
      applicability: applicable ? 'y' : 'n',
      // Every other exclusion was left to the recommendation, without a comment of its own.
      applicability_origin: recommended ? 'initial_recommendation' : i % 3 === 0 ? 'explicit_user_choice' : 'default_inclusion',
      applicability_comment: applicable || recommended ? null : 'The system has no wireless networks, so this control does not apply.',
      implementation_status: status,
      implementation_summary: status ? `Implemented through the managed platform for ${e.label}.` : null,
      implementation_description: status
        ? `The agency meets ${e.label} as follows. Configuration is enforced centrally through group policy and verified weekly by the operations team; exceptions are recorded in the exceptions register and reviewed each quarter.`
        : null,
      implementation_notes: showImplementation
        ? { proposed_outcome: outcome, proposed_rationale: outcome ? 'Self-assessed against the configuration baseline.' : null, proposed_maturity: null }
        : null,
      workflow_state: outcome ? 'assessed' : 'editing',
      assessment: {
        outcome,
        rationale: outcome ? `Observed the configuration of ${e.label} on a sample of three servers.` : null,
        severity: failing ? SEVERITIES[i % SEVERITIES.length]! : null,
        maturity_level: e.essential_eight.length && outcome === 'effective' ? (e.essential_eight[0] ?? null) : null,
        evidence_references: outcome ? [`01JEVIDENCE${String(i).padStart(15, '0')}`] : [],
        assessor_notes: showAssessor && outcome ? 'Assessor working note: interviewed the system administrator.' : null,
      },
      evidence: outcome ? [evidenceOf(i, e.label)] : [],
      provider_guidance:
        i % 29 === 0
          ? [
              {
                provider_id: '01JPROVIDER0000000000000000',
                release_id: '01JRELEASE00000000000000000',
                responsibility: i % 58 === 0 ? 'shared' : 'provider',
                guidance: 'Enable tenant logging.',
              },
            ]
          : [],
      recommendation: recommended ? { value: 'n', reasons: ['The scope has no wireless networks.'] } : null,
    };
  });
  const poamStatuses = ['open', 'in_progress', 'completed', 'cancelled'] as const;
  const poam: DocumentPoamRow[] = controls
    .filter((c) => ['ineffective', 'no_visibility', 'not_implemented'].includes(c.assessment.outcome ?? ''))
    .slice(0, 8)
    .map((c, i) => ({
      id: `01JPOAMROW${String(i).padStart(16, '0')}`,
      item_id: `POAM-${i + 1}`,
      weakness: `${c.label} is not met on the administration workstations.`,
      // Rows name their control either way the register allows: by ULID or by ISM code.
      related_control: i % 2 ? c.label : c.id,
      severity: c.assessment.severity,
      milestone: i % 3 ? `Roll out the configuration for ${c.label}.` : null,
      responsible: i % 2 ? { id: '01JCONTACT0000000000000000', name: 'Sam Operator' } : null,
      resources_required: null,
      scheduled_completion: i % 4 === 2 ? null : `2027-0${(i % 9) + 1}-15`,
      status: poamStatuses[i % poamStatuses.length]!,
      completed_on: i % 4 === 2 ? '2026-11-20' : null,
      created_at: '2026-10-05T01:02:03.000Z',
      updated_at: '2026-11-05T01:02:03.000Z',
    }));
  const output = o.output ?? 'draft';
  const marking = CLASSIFICATIONS.find((c) => c.code === classification)!;
  const person = { id: '01JUSER0000000000000000000', name: 'Alex Assessor' };
  return {
    document: {
      key: o.key ?? 'ssp',
      title: 'System Security Plan',
      output,
      generation_id: '01JGENERATION0000000000000',
      generated_at: '2026-11-25T01:02:03.000Z',
      generated_by: person,
      approved_by: output === 'final' ? person : null,
      approved_at: output === 'final' ? '2026-11-25T01:02:03.000Z' : null,
    },
    options: { draft_watermark: output === 'draft', show_implementation_notes: showImplementation, show_assessor_notes: showAssessor },
    marking,
    organisation: { id: '01JORG000000000000000000000', name: 'Department of Examples' },
    system: { id: '01JSYSTEM000000000000000000', name: 'Case Management System', short_code: 'CMS', description: 'Handles citizen case files.' },
    project: {
      id: '01JPROJECT00000000000000000',
      name: '2026 IRAP assessment',
      description: 'Annual assessment of the case management system.',
      classification,
      essential_eight_target: o.essentialEightTarget ?? 'ML2',
    },
    release: { id: '01JRELEASE0000000000000000', version: ismRelease().version, title: ismRelease().title, published: ismRelease().published, sample: false },
    scope: {
      assessment_type: 'initial',
      objectives: 'Assess the system for operation at its classification.',
      in_scope: 'Production tenancy, administration workstations.',
      out_of_scope: 'Corporate email.',
      locations: ['Canberra', 'Sydney'],
      planned_start: '2026-10-01',
      planned_end: '2026-12-01',
      wireless_networks: 'no',
    },
    context: { organisation: { sector: 'government' }, system: { hosting: 'cloud' } },
    engagement: {
      engagement_reference: 'ENG-2026-01',
      client_name: 'Department of Examples',
      assessor_organisation: 'Example Assessors Pty Ltd',
      lead_assessor_name: 'Alex Assessor',
      start_date: '2026-10-01',
      end_date: '2026-12-01',
    },
    controls,
    registers: [
      { key: 'risk-register', title: 'Risk register', owner: 'project', rows: 12 },
      { key: 'poam', title: 'Plan of action and milestones', owner: 'project', rows: 4 },
      { key: 'asset-register', title: 'Asset register', owner: 'system', rows: 40 },
    ],
    public_url: 'https://assess.example.gov.au',
    provider_releases: [
      {
        provider_id: '01JPROVIDER0000000000000000',
        provider_name: 'Example Cloud',
        release_id: '01JRELEASE00000000000000000',
        release_name: 'IRAP assessment 2026',
        release_version: '2026.1',
        assessed_on: '2026-06-30',
        published_on: '2026-07-14',
      },
    ],
    poam,
    risks: risksOf(poam, controls),
    versions: [
      {
        key: 'ssp',
        title: 'System Security Plan',
        generation_id: '01JGENERATION0000000000000A',
        output: 'final',
        generated_at: '2026-09-14T03:00:00.000Z',
        generated_by: person,
        approved_by: { id: '01JUSER0000000000000000001', name: 'Jordan Owner' },
        approved_at: '2026-09-15T00:00:00.000Z',
      },
      {
        key: 'security-assessment-report',
        title: 'Security Assessment Report',
        generation_id: '01JGENERATION0000000000000B',
        output: 'draft',
        generated_at: '2026-11-01T03:00:00.000Z',
        generated_by: person,
        approved_by: null,
        approved_at: null,
      },
    ],
    contacts: [
      {
        id: '01JCONTACT0000000000000001',
        name: 'Casey Owner',
        role: 'System owner',
        email: 'casey.owner@example.gov.au',
        phone: '02 6000 0000',
        organisation_name: 'Department of Examples',
      },
      { id: '01JCONTACT0000000000000000', name: 'Sam Operator', role: 'System administrator', email: null, phone: null, organisation_name: 'Example Cloud' },
    ],
    related_plans: [
      {
        key: 'incident-response-plan',
        title: 'Incident response plan',
        kind: 'procedure',
        date_live: '2026-03-01',
        review_due: '2027-03-01',
        updated_at: '2026-10-02T00:00:00.000Z',
      },
    ],
    images:
      o.images === false
        ? { logo: null, diagram: null }
        : {
            logo: { media_type: 'image/png', bytes: png(120, 60, 90), width: 120, height: 60 },
            diagram: { media_type: 'image/png', bytes: png(800, 500, 200), width: 800, height: 500 },
          },
  };
}

const CAPTURED_AT = '2026-10-20T04:05:06.000Z';

/**
 * The evidence an assessed control cites, as its capture left it: odd controls an upload the
 * capture pinned, every fourth of those (i % 4 === 3) an upload that failed (an empty file) and
 * was only acknowledged, even ones an external reference acknowledged as unverifiable.
 */
function evidenceOf(i: number, label: string): DocumentEvidence {
  const base = {
    id: `01JEVIDENCE${String(i).padStart(15, '0')}`,
    title: `Configuration export for ${label}`,
    evidence_type: 'configuration export',
    collected_on: '2026-10-01',
    updated_at: '2026-10-02T03:04:05.000Z',
  };
  if (i % 2 === 0) {
    const citation = { kind: 'acknowledged_warning', captured_at: CAPTURED_AT, reason: 'unverified' } as const;
    return { ...base, kind: 'external_reference', status: 'ready', error_code: null, citation };
  }
  if (i % 4 === 3) {
    const citation = { kind: 'acknowledged_warning', captured_at: CAPTURED_AT, reason: 'not_ready' } as const;
    return { ...base, kind: 'upload', status: 'error', error_code: 'empty_file', citation };
  }
  return {
    ...base,
    kind: 'upload',
    status: 'ready',
    error_code: null,
    citation: { kind: 'pinned', captured_at: CAPTURED_AT, version: 1, sha256: 'a'.repeat(64) },
  };
}

/** A risk for every other POA&M row's control, named by its ISM code, with an owner, a treatment and a review date. */
function risksOf(poam: DocumentPoamRow[], controls: DocumentControl[]): DocumentRiskRow[] {
  return poam
    .filter((_, i) => i % 2 === 0)
    .map((row, i) => {
      const control = controls.find((c) => c.id === row.related_control || c.label === row.related_control)!;
      return {
        id: `01JRISKROW${String(i).padStart(16, '0')}`,
        risk_id: `R-${i + 1}`,
        title: `Weakness in ${control.label}`,
        description: null,
        likelihood: 'possible',
        consequence: 'major',
        inherent_rating: 'high',
        treatment: 'Reduce through configuration hardening.',
        residual_rating: i % 2 ? 'medium' : 'high',
        risk_owner: { id: '01JCONTACT0000000000000001', name: 'Casey Owner' },
        related_control: control.label,
        status: 'treating',
        review_due: '2027-01-31',
      };
    });
}

/** A sink that keeps what a renderer writes, for tests. */
export function collector(): { out: Writable; bytes: () => Buffer } {
  const chunks: Buffer[] = [];
  const out = new Writable({
    write(chunk: Buffer, _encoding, done) {
      chunks.push(Buffer.from(chunk));
      done();
    },
  });
  return { out, bytes: () => Buffer.concat(chunks) };
}
