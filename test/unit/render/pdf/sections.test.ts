import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DocumentControl, DocumentModel } from '../../../../lib/domain/document-model.js';
import { formatDate } from '../../../../lib/render/pdf/format.js';
import { byPath, counts, groupHeadings, overview, recordTable, signatures, tableOr, valueText } from '../../../../lib/render/pdf/sections.js';
import { documentModel } from '../../../support/document-model.js';
import { bodyPages, measuringLayout } from '../../../support/pdf.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'pdf-sections-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

const NBSP = '\u00a0';
const controls = documentModel({ limit: 6 }).controls;
const at = (path: string[], i = 0): DocumentControl => ({ ...controls[i]!, path });

describe('valueText', () => {
  it.each([
    ['nothing', null, '—'],
    ['an empty string', '', '—'],
    ['an empty list', [], '—'],
    ['true', true, 'Yes'],
    ['false', false, 'No'],
    ['a number', 12, '12'],
    ['free text', 'Hosted in Sydney', 'Hosted in Sydney'],
    ['an option code', 'cloud_hosted', 'Cloud hosted'],
    ['an ISO date', '2026-10-01', `1${NBSP}October${NBSP}2026`],
    ['a list', ['no', 'Azure'], 'No, Azure'],
    ['a record', { hosting: 'cloud', since: '2026-10-01' }, `Hosting: Cloud; Since: 1${NBSP}October${NBSP}2026`],
  ])('writes %s as a reader would', (_label, value, text) => {
    expect(valueText(value)).toBe(text);
  });
});

describe('byPath', () => {
  it('groups consecutive controls of the same guideline, section and topic', () => {
    const groups = byPath([at(['G', 'S', 'T'], 0), at(['G', 'S', 'T'], 1), at(['G', 'S', 'U'], 2), at(['G', 'S', 'T'], 3)]);
    expect(groups.map((g) => [g.topic, g.controls.length])).toEqual([
      ['T', 2],
      ['U', 1],
      ['T', 1],
    ]);
  });

  it('puts a control without a path under Other', () => {
    expect(byPath([at([])])).toEqual([{ guideline: 'Other', section: '', topic: '', controls: [at([])] }]);
  });
});

describe('counts', () => {
  it('tallies the controls by the key, most frequent first', () => {
    const kinds = ['a', 'b', 'b', 'c', 'b', 'c'];
    expect(counts(controls, (c) => kinds[controls.indexOf(c)]!)).toEqual([
      ['b', 3],
      ['c', 2],
      ['a', 1],
    ]);
  });
});

describe('groupHeadings', () => {
  const headingsOf = (...groups: ReturnType<typeof byPath>) => {
    const w = measuringLayout();
    w.addPage();
    groups.forEach((g, i) => {
      groupHeadings(w, g, groups[i - 1]);
    });
    return w.headings.map((h) => [h.level, h.title, h.toc]);
  };

  it('heads the first group with its guideline and section, and its topic outside the contents', () => {
    expect(headingsOf(...byPath([at(['G', 'S', 'T'])]))).toEqual([
      [1, 'G', true],
      [2, 'S', true],
      [3, 'T', false],
    ]);
  });

  it('heads a group of the same guideline and section with its topic alone', () => {
    expect(headingsOf(...byPath([at(['G', 'S', 'T'], 0), at(['G', 'S', 'U'], 1)])).slice(3)).toEqual([[3, 'U', false]]);
  });

  it('heads a section again under a new guideline, though it has the same name', () => {
    expect(headingsOf(...byPath([at(['G', 'S', 'T'], 0), at(['H', 'S', 'T'], 1)])).slice(3)).toEqual([
      [1, 'H', true],
      [2, 'S', true],
      [3, 'T', false],
    ]);
  });

  it('heads no section or topic a group does not have', () => {
    expect(headingsOf(...byPath([at(['G'])]))).toEqual([[1, 'G', true]]);
  });
});

describe('tables of sections', () => {
  it('writes a record as a field and value table, keys in words', async () => {
    const [page] = await bodyPages(dir, 'record', async (w) => recordTable(w, { hosting_model: 'cloud_hosted', reviewed: true }, 'Nothing recorded.'));
    expect(page).toContain('Field Value Hosting model Cloud hosted Reviewed Yes');
  });

  it('writes the sentence for an empty record instead of a table', async () => {
    const [page] = await bodyPages(dir, 'empty-record', async (w) => recordTable(w, {}, 'Nothing recorded.'));
    expect([page!.includes('Nothing recorded.'), page!.includes('Field Value')]).toEqual([true, false]);
  });

  it('writes the sentence for a table without rows', async () => {
    const [page] = await bodyPages(dir, 'empty-table', async (w) => tableOr(w, 'No risks are recorded.', [{ header: 'Risk', share: 1 }], []));
    expect([page!.includes('No risks are recorded.'), page!.includes('Risk')]).toEqual([true, false]);
  });

  it('gives each signatory a row with room to sign and date', async () => {
    const [page] = await bodyPages(dir, 'signatures', async (w) => signatures(w, [['Lead assessor', 'Alex Assessor']]));
    expect(page).toContain('Role Name Signature Date Lead assessor Alex Assessor');
  });
});

describe('overview', () => {
  const overviewText = async (name: string, model: DocumentModel) => (await bodyPages(dir, name, async (w) => overview(w), model)).join(' ');

  it('writes a project without an Essential Eight target as having none', async () => {
    const model = documentModel({ limit: 1, output: 'final', essentialEightTarget: 'none' });
    expect(await overviewText('no-target', model)).toContain(`Classification ${model.marking.name} Essential Eight target None`);
  });

  it('names the ISM release with the date it was published', async () => {
    const model = documentModel({ limit: 1, output: 'final' });
    const published = formatDate(model.release.published!).replaceAll(NBSP, ' ');
    expect(await overviewText('release', model)).toContain(`ISM release ${model.release.title} (${model.release.version}, published ${published})`);
  });

  it('marks an engagement field left empty for the assessor to complete', async () => {
    const model = documentModel({ limit: 1, output: 'final' });
    const text = await overviewText('engagement', { ...model, engagement: { ...model.engagement, client_name: '' } });
    expect(text).toContain('Client name [To be completed by the assessor: the client name]');
  });
});
