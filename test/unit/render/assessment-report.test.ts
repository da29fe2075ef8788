import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assessmentReportRenderer } from '../../../lib/render/pdf/assessment-report.js';
import { documentModel } from '../../support/document-model.js';
import { pageTexts, renderTo } from '../../support/pdf.js';

const LIMIT = 120;
let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'assessment-report-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

const text = async (name: string, model: ReturnType<typeof documentModel>) =>
  (await pageTexts(await renderTo(assessmentReportRenderer, model, dir, name))).join(' ').replace(/\s+/g, ' ');

describe('security assessment report', () => {
  it('shows assessor notes when the model carries them', async () => {
    const all = await text('notes-shown', documentModel({ key: 'security-assessment-report', limit: LIMIT, showAssessorNotes: true }));
    expect(all).toContain('Assessor notes: Assessor working note');
  });

  it('shows no assessor notes when the model leaves them out', async () => {
    const all = await text('notes-hidden', documentModel({ key: 'security-assessment-report', limit: LIMIT, showAssessorNotes: false }));
    expect(all).not.toContain('Assessor working note');
    expect(all).not.toContain('Assessor notes');
  });

  it('lists findings by severity, most severe first', async () => {
    const all = await text('severity', documentModel({ key: 'security-assessment-report', limit: LIMIT }));
    const body = all.slice(all.lastIndexOf('Findings Critical severity'));
    const order = ['Critical severity', 'High severity', 'Medium severity', 'Low severity'].map((s) => body.indexOf(s));
    expect(order.every((at) => at >= 0)).toBe(true);
    expect([...order].sort((a, b) => a - b)).toEqual(order);
  });

  it('cites the evidence of each conclusion, with the SHA-256 of pinned files', async () => {
    const model = documentModel({ key: 'security-assessment-report', limit: LIMIT });
    const all = (await text('evidence', model)).replace(/ /g, '');
    const pinned = model.controls.find((c) => c.applicability === 'y' && c.evidence.some((e) => e.sha256))!;
    expect(all).toContain(`Configurationexportfor${pinned.label}`);
    expect(all).toContain('a'.repeat(64));
  });

  it('summarises the registers', async () => {
    const all = await text('registers', documentModel({ key: 'security-assessment-report', limit: 20 }));
    expect(all).toContain('Plan of action and milestones Project 4');
  });
});
