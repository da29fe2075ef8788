import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assessmentReportRenderer } from '../../../../lib/render/pdf/assessment-report.js';
import type { DocumentControl } from '../../../../lib/domain/document-model.js';
import { labelOf, OUTCOME_LABELS } from '../../../../lib/render/labels.js';
import { humanise } from '../../../../lib/render/pdf/format.js';
import { topicOf } from '../../../../lib/render/pdf/report-links.js';
import { documentModel } from '../../../support/document-model.js';
import { pageTexts, renderTo } from '../../../support/pdf.js';

const LIMIT = 120;
let dir: string;
/** The report of the default model, rendered once: most tests read it. */
const model = documentModel({ key: 'security-assessment-report', limit: LIMIT });
let report: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'assessment-report-'));
  report = await text('report', model);
}, 60_000);
afterAll(() => rm(dir, { recursive: true, force: true }));

const text = async (name: string, model: ReturnType<typeof documentModel>) =>
  (await pageTexts(await renderTo(assessmentReportRenderer, model, dir, name))).join(' ').replace(/\s+/g, ' ');

describe('security assessment report', () => {
  it('shows assessor notes when the model carries them', async () => {
    expect(report).toContain('Assessor notes: Assessor working note');
  });

  it('shows no assessor notes when the model leaves them out', async () => {
    const all = await text('notes-hidden', documentModel({ key: 'security-assessment-report', limit: LIMIT, showAssessorNotes: false }));
    expect(all).not.toContain('Assessor working note');
    expect(all).not.toContain('Assessor notes');
  }, 30_000);

  it('lists findings by severity, most severe first', async () => {
    const all = report;
    const body = all.slice(all.lastIndexOf('Findings Critical severity'));
    const order = ['Critical severity', 'High severity', 'Medium severity', 'Low severity'].map((s) => body.indexOf(s));
    expect(order.every((at) => at >= 0)).toBe(true);
    expect([...order].sort((a, b) => a - b)).toEqual(order);
  });

  it('cites as pinned only what the capture pinned, with the digest it recorded', async () => {
    const all = report.replace(/ /g, '');
    expect(all).toContain(`Pinned(version1),SHA-256${'a'.repeat(64)}`);
  });

  it('cites a failed upload the capture did not pin as an acknowledged warning, with no digest', async () => {
    const unpinned = documentModel({ key: 'security-assessment-report', limit: LIMIT });
    for (const c of unpinned.controls) for (const e of c.evidence) if (e.citation.kind === 'pinned') e.citation = { kind: 'not_captured' };
    const all = await text('failed', unpinned);
    expect(all).toContain(
      'Not pinned: the item was not ready when the control was assessed; the file failed (empty_file); acknowledged by the assessor on 20 October 2026',
    );
    expect(all).not.toMatch(/SHA-256 [0-9a-f]{8}/);
  }, 30_000);

  it('opens with an executive summary and a recommendation to the authorising officer, not determined while controls are not assessed', async () => {
    const all = report;
    const notAssessed = model.controls.filter((c) => c.applicability === 'y' && !c.assessment.outcome).length;
    expect(all).toContain('Executive summary Example Assessors Pty Ltd assessed Case Management System (CMS) of Department of Examples');
    expect(all).toContain(`Recommendation to the authorising officer Not determined: ${notAssessed} of the`);
  });

  it('shows the IRAP report sections in reading order', async () => {
    const all = report;
    const body = all.slice(all.indexOf('Executive summary Example'));
    const sections = [
      'Executive summary',
      'Scope and boundary',
      'Methodology',
      'Limitations',
      'Assessor details',
      'Compliance summary',
      'Findings',
      'Effective controls',
      'Inherited and common controls',
      'Controls not assessed',
      'Exclusions',
      'Evidence cited',
      'Registers',
      'Sign-off',
    ];
    // Each heading after the one before it: every section is there, in this order.
    let from = 0;
    for (const section of sections) {
      const at = body.indexOf(section, from);
      expect(at, section).toBeGreaterThanOrEqual(from);
      from = at + section.length;
    }
  });

  it('gives each finding its status, rationale, severity and risk rating, recommendation, and linked risk and POA&M rows with owner and due date', async () => {
    const controlOf = (reference: string | null) => model.controls.find((c) => c.id === reference || c.label === reference)!;
    const blockOf = (c: DocumentControl) => {
      const at = report.indexOf(`${c.label} · ${topicOf(c)}`);
      return report.slice(at, at + 2500);
    };
    const planned = controlOf(model.poam[1]!.related_control);
    expect(blockOf(planned)).toContain(`Status: ${labelOf(OUTCOME_LABELS, planned.assessment.outcome)}`);
    expect(blockOf(planned)).toContain(`Rationale: Observed the configuration of ${planned.label}`);
    expect(blockOf(planned)).toContain(`Recommendation: Roll out the configuration for ${planned.label}. (POAM-2)`);
    expect(blockOf(planned)).toContain('POAM-2');
    expect(blockOf(planned)).toContain('Sam Operator');
    expect(blockOf(planned)).toContain('15 February 2027');
    const risky = controlOf(model.risks[0]!.related_control);
    expect(blockOf(risky)).toContain(`Severity and risk rating: ${humanise(risky.assessment.severity)} severity; High risk`);
    expect(blockOf(risky)).toMatch(/R-1 Weakness in .* High Casey Owner Treating 31 January 2027/);
  });

  it('prints a marked placeholder where nothing the project holds gives a recommendation or the assessor details', async () => {
    const all = report;
    expect(all).toContain('Recommendation: [To be completed by the assessor: the recommended remediation of this finding]');
    expect(all).toContain("IRAP endorsement [To be completed by the assessor: the lead assessor's IRAP endorsement]");
  });

  it('lists excluded controls with their reasons, and applicable controls without a conclusion as not assessed', async () => {
    const all = report;
    const excluded = model.controls.find((c) => c.applicability === 'n')!;
    const notAssessed = model.controls.find((c) => c.applicability === 'y' && !c.assessment.outcome)!;
    expect(all.slice(all.lastIndexOf('Exclusions'))).toContain(`${excluded.label} ${topicOf(excluded)} The system has no wireless networks`);
    expect(all.slice(all.lastIndexOf('Controls not assessed'))).toContain(notAssessed.label);
  });

  it('ends with a sign-off block for the lead assessor and the authorising officer', async () => {
    expect(report.slice(report.lastIndexOf('Sign-off'))).toMatch(/Lead assessor Alex Assessor .*Authorising officer \[To be completed by the assessor: name\]/);
  });

  it('summarises the registers', async () => {
    expect(report).toContain('Plan of action and milestones Project 4');
  });
});
