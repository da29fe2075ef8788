import { ImportRejected, LIMITS, type ParsedImport, withoutDuplicates } from './rows.js';

/** JSON text of a structured artefact, refused whole when it is not JSON. */
export function jsonOf(bytes: Uint8Array): unknown {
  try {
    return JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes).replace(/^\uFEFF/, ''));
  } catch {
    throw new ImportRejected('malformed_json', 'not readable as UTF-8 JSON');
  }
}

/**
 * Reads a document's list of assertions one by one, so that one unreadable entry is reported by
 * its 1-based position while the others import.
 */
export function eachEntry<T>(entries: readonly T[], read: (entry: T, row: number) => ParsedImport['rows'][number] | string): ParsedImport {
  if (entries.length > LIMITS.rows)
    throw new ImportRejected('too_many_rows', `an import holds at most ${LIMITS.rows} assertions; this one has ${entries.length}`);
  const parsed: ParsedImport = { rows: [], errors: [] };
  entries.forEach((entry, i) => {
    const result = read(entry, i + 1);
    if (typeof result === 'string') parsed.errors.push({ row: i + 1, reason: result });
    else parsed.rows.push(result);
  });
  return withoutDuplicates(parsed);
}

/** The first issue of a failed zod parse as a row's reason, naming where it is. */
export const firstIssue = (issues: readonly { path: PropertyKey[]; message: string; code: string; keys?: string[] }[]) => {
  const issue = issues[0];
  if (!issue) return 'is not readable';
  const at = issue.path.map(String).join('.');
  const what = issue.code === 'unrecognized_keys' ? `unknown property ${issue.keys?.join(', ')}` : issue.message;
  return at ? `${at}: ${what}` : what;
};
