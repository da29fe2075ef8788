import type { DocumentControl, DocumentModel } from '../../domain/document-model.js';
import { MATURITY_LABELS } from '../labels.js';
import { formatDate, humanise } from './format.js';
import { COLOURS, type PdfLayout } from './layout.js';
import { placeholder } from './report-links.js';
import { type Column, table } from './table.js';

/** A stored value as a reader would write it: lists joined, nested records as "key: value". */
export function valueText(value: unknown): string {
  if (value === null || value === undefined || value === '') return '—';
  if (typeof value === 'boolean') return value ? 'Yes' : 'No';
  if (Array.isArray(value)) return value.length ? value.map(valueText).join(', ') : '—';
  if (typeof value === 'object') {
    return Object.entries(value as Record<string, unknown>)
      .map(([k, v]) => `${humanise(k)}: ${valueText(v)}`)
      .join('; ');
  }
  // A stored ISO date reads like every other date of the document.
  if (typeof value === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(value)) return formatDate(value);
  // An option's code (initial, no, cloud_hosted) reads as its words.
  if (typeof value === 'string' && /^[a-z][a-z0-9_]*$/.test(value)) return humanise(value);
  return String(value);
}

/** A saved record (scope, context answers, engagement) as a two-column table, or a sentence when empty. */
export function recordTable(w: PdfLayout, record: Record<string, unknown>, empty: string): void {
  const rows = Object.entries(record).map(([key, value]) => [humanise(key), valueText(value)]);
  if (!rows.length) {
    w.paragraph(empty, 'italic', 9, { colour: COLOURS.muted });
    return;
  }
  table(
    w,
    [
      { header: 'Field', share: 0.3, font: 'bold' },
      { header: 'Value', share: 0.7 },
    ],
    rows,
  );
}

/** The system, the project and the engagement: the opening section every PDF shares. */
export function overview(w: PdfLayout, title = 'System and project'): void {
  const { model } = w;
  w.heading(1, title);
  w.heading(2, 'System');
  table(
    w,
    [
      { header: 'Field', share: 0.3, font: 'bold' },
      { header: 'Value', share: 0.7 },
    ],
    [
      ['Organisation', model.organisation.name],
      ['System', `${model.system.name} (${model.system.short_code})`],
      ['Description', model.system.description ?? '—'],
      ['Project', model.project.name],
      ['Project description', model.project.description ?? '—'],
      ['Classification', model.marking.name],
      ['Essential Eight target', model.project.essential_eight_target === 'none' ? 'None' : MATURITY_LABELS[model.project.essential_eight_target]],
      [
        'ISM release',
        `${model.release.title} (${model.release.version}${model.release.published ? `, published ${formatDate(model.release.published)}` : ''})`,
      ],
    ],
  );
  w.heading(2, 'Engagement');
  // An engagement field left empty is one the assessor completes, marked as the report marks its own.
  const engagement = Object.fromEntries(
    Object.entries(model.engagement).map(([key, value]) => [key, value || placeholder(`the ${humanise(key).toLowerCase()}`)]),
  );
  recordTable(w, engagement, 'No engagement details are recorded.');
}

export interface Group {
  guideline: string;
  section: string;
  topic: string;
  controls: DocumentControl[];
}

/** Controls in catalogue order, grouped by their catalogue path (guideline, section, topic). */
export function byPath(controls: DocumentControl[]): Group[] {
  const groups: Group[] = [];
  for (const control of controls) {
    const [guideline = 'Other', section = '', topic = ''] = control.path;
    const last = groups.at(-1);
    if (last && last.guideline === guideline && last.section === section && last.topic === topic) last.controls.push(control);
    else groups.push({ guideline, section, topic, controls: [control] });
  }
  return groups;
}

/** Headings for a group: a guideline and section only when they change from the previous group. */
export function groupHeadings(w: PdfLayout, group: Group, previous: Group | undefined): void {
  if (group.guideline !== previous?.guideline) w.heading(1, group.guideline);
  if (group.section && (group.section !== previous?.section || group.guideline !== previous?.guideline)) w.heading(2, group.section);
  if (group.topic) w.heading(3, group.topic, { toc: false });
}

/** How many controls of `controls` take each value of `key`, most frequent first. */
export function counts(controls: DocumentModel['controls'], key: (c: DocumentControl) => string): [string, number][] {
  const tally = new Map<string, number>();
  for (const control of controls) tally.set(key(control), (tally.get(key(control)) ?? 0) + 1);
  return [...tally.entries()].sort((a, b) => b[1] - a[1]);
}

/** A signature block: one row per role and name, with room to sign and date by hand. */
export function signatures(w: PdfLayout, people: [role: string, name: string][]): void {
  table(
    w,
    [
      { header: 'Role', share: 0.24, font: 'bold' },
      { header: 'Name', share: 0.3 },
      { header: 'Signature', share: 0.26 },
      { header: 'Date', share: 0.2 },
    ],
    people.map(([role, name]) => [role, name, '', '']),
  );
}

/** A table of `rows`, or the sentence `empty` when there are none. */
export function tableOr(w: PdfLayout, empty: string, columns: Column[], rows: string[][]): void {
  if (rows.length) table(w, columns, rows);
  else w.paragraph(empty);
}
