import { ORIGIN_LABELS, OUTCOME_LABELS, STATUS_LABELS, WORKFLOW_LABELS } from '../labels.js';

const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];

/**
 * Joins the parts of a date with no-break spaces, so that a date never wraps across lines (the
 * table's wrapper and pdfkit's break only at ordinary spaces).
 */
const NBSP = '\u00a0';

/**
 * 25 November 2026, from an ISO date or timestamp, whatever the process's locale: the day, the
 * month in words and the year, as the Australian Government Style Manual writes dates in text.
 * A spelt-out month cannot be misread as the American month-first order, as 01/02/2026 can.
 */
export function formatDate(iso: string): string {
  const [year, month, day] = iso.slice(0, 10).split('-').map(Number);
  if (!year || !month || !day) return iso;
  return [day, MONTHS[month - 1], year].join(NBSP);
}

/** The ISM's month of last update (Dec-25) as December 2025; anything else as given. */
export function formatMonth(updated: string): string {
  const match = /^([A-Z][a-z]{2})-(\d{2})$/.exec(updated);
  const month = match ? MONTHS.find((m) => m.startsWith(match[1]!)) : undefined;
  return match && month ? [month, `20${match[2]}`].join(NBSP) : updated;
}

export function formatTimestamp(iso: string): string {
  return [formatDate(iso), iso.slice(11, 16), 'UTC'].join(NBSP);
}

/** The labels of the codes controls carry, and of values whose words do not say what they mean. */
const NAMES: Record<string, string> = { ...ORIGIN_LABELS, ...WORKFLOW_LABELS, ...OUTCOME_LABELS, ...STATUS_LABELS };

/** A code as its label (lib/render/labels.ts), else its words: partially_implemented -> Partially implemented; null -> Not set. */
export function humanise(value: string | null | undefined): string {
  if (!value) return 'Not set';
  const named = NAMES[value];
  if (named) return named;
  const words = value.replaceAll('_', ' ');
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** Multi-line input as the layout draws it: tabs as spaces and CR LF as LF (fonts have no glyph for either control). */
export function plain(text: string): string {
  return text.replaceAll('\t', '    ').replaceAll('\r\n', '\n');
}
