import * as z from 'zod';
import { multiLine, singleLine } from '../validation.js';
import { eachEntry, firstIssue } from './json.js';
import { controlIdOf, IMPLEMENTATION_STATUSES, ImportRejected, LIMITS, type ParsedImport, RESPONSIBILITIES } from './rows.js';

/**
 * This service's own JSON assertion format, version 1 (docs/operations/providers.md documents it):
 * `{ "format": "ism-assertions", "format_version": 1, "ism_version"?: "2025.12.9", "assertions": [ … ] }`
 * with one entry per ISM control. Strict where a spreadsheet cannot be: values are the service's
 * own words (no spellings mapped) and unknown properties are refused, the document's as a whole,
 * an entry's as that entry's error.
 */
export const ASSERTION_FORMAT = 'ism-assertions';

const text = () => multiLine().max(LIMITS.cell).nullable().optional();

const Entry = z.strictObject({
  control_id: singleLine().max(40),
  responsibility: z.enum(RESPONSIBILITIES),
  implementation_status: z.enum(IMPLEMENTATION_STATUSES).nullable().optional(),
  implementation_statement: text(),
  consumer_guidance: text(),
  assessor_finding: text(),
  control_text: text(),
});

const Document = z.strictObject({
  format: z.literal(ASSERTION_FORMAT),
  format_version: z.literal(1),
  ism_version: singleLine().max(40).nullable().optional(),
  assertions: z.array(z.unknown()),
});

export function parseAssertionDocument(json: unknown): ParsedImport {
  const document = Document.safeParse(json);
  if (!document.success) throw new ImportRejected('invalid_assertion_document', firstIssue(document.error.issues));
  const ismVersion = document.data.ism_version ?? null;
  return eachEntry(document.data.assertions, (raw, row) => {
    const entry = Entry.safeParse(raw);
    if (!entry.success) return firstIssue(entry.error.issues);
    const controlId = controlIdOf(entry.data.control_id);
    if (!controlId) return `control_id: "${entry.data.control_id}" is not an ISM control identifier`;
    const orNull = (value: string | null | undefined) => (value?.trim() ? value.trim() : null);
    return {
      row,
      control_id: controlId,
      responsibility: entry.data.responsibility,
      implementation_status: entry.data.implementation_status ?? null,
      implementation_statement: orNull(entry.data.implementation_statement),
      consumer_guidance: orNull(entry.data.consumer_guidance),
      assessor_finding: orNull(entry.data.assessor_finding),
      control_text: orNull(entry.data.control_text),
      ism_version: ismVersion,
    };
  });
}
