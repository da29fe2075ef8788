const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];

/** 25 November 2026, from an ISO date or timestamp, whatever the process's locale. */
export function formatDate(iso: string): string {
  const [year, month, day] = iso.slice(0, 10).split('-').map(Number);
  if (!year || !month || !day) return iso;
  return `${day} ${MONTHS[month - 1]} ${year}`;
}

export function formatTimestamp(iso: string): string {
  return `${formatDate(iso)} ${iso.slice(11, 16)} UTC`;
}

/** Values whose words do not say what they mean. */
const NAMES: Record<string, string> = { ec: 'Effective through provider assertion' };

/** partially_implemented -> Partially implemented; null -> Not set. */
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
