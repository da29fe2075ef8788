import * as z from 'zod';
import type { FieldError } from '../errors.js';
import { CLASSIFICATION_CODES, type Classification } from './classifications.js';
import { Ulid } from './ids.js';
import { LIBRARY_KINDS, type LibraryDefinition } from './library-definitions.js';
import { changesSomething } from './patch.js';
import { multiLine, once } from './validation.js';

/**
 * content_markdown's budget in UTF-8 bytes: DynamoDB refuses items above 400 KB, and the content
 * item's other attributes and keys take well under 1 KB, so 200,000 bytes leaves half the item free
 * while holding some 30,000 words, several times a long policy.
 */
export const CONTENT_BUDGET_BYTES = 200_000;

const IsoDate = once(() => z.iso.date().meta({ description: 'YYYY-MM-DD' }));

export const UpdateLibraryItem = once(() =>
  z
    .strictObject({
      content_markdown: multiLine()
        .nullable()
        .meta({
          description: `CommonMark. Raw HTML may carry class and id attributes only; no script, style or embedding elements; no javascript:, vbscript:, data: or file: link targets. At most ${CONTENT_BUDGET_BYTES} UTF-8 bytes. null clears.`,
        }),
      owner_user_id: Ulid.nullable().meta({ description: 'An active member of the organisation (see GET …/document-owners); null clears.' }),
      classification: z.enum(CLASSIFICATION_CODES).nullable(),
      date_live: IsoDate().nullable(),
      review_due: IsoDate().nullable().meta({ description: 'Not before date_live (as it stands after this patch).' }),
    })
    .partial()
    .apply(changesSomething, 'property')
    .meta({ id: 'UpdateLibraryItem', description: 'JSON merge patch of the working copy: omitted properties are kept; null clears one.' }),
);
export type UpdateLibraryItem = z.output<ReturnType<typeof UpdateLibraryItem>>;

/** What a project has written about a definition; every field empty until the first PATCH. */
export interface WorkingCopy {
  content_markdown: string | null;
  owner_user_id: string | null;
  classification: Classification | null;
  date_live: string | null;
  review_due: string | null;
  updated_at: string | null;
  updated_by: string | null;
}

/** A working copy without its content, as the library list reads it. */
export type WorkingCopySummary = Omit<WorkingCopy, 'content_markdown'> & { content_bytes: number };

export interface StoredWorkingCopy extends WorkingCopy {
  project_id: string;
  definition_id: string;
  /** 0 for a working copy never written (no item stored). */
  version: number;
  /** The version that last wrote the content, which its content item carries too; 0 without content. */
  content_version: number;
}

export const emptyWorkingCopy = (projectId: string, definitionId: string): StoredWorkingCopy => ({
  project_id: projectId,
  definition_id: definitionId,
  content_markdown: null,
  owner_user_id: null,
  classification: null,
  date_live: null,
  review_due: null,
  updated_at: null,
  updated_by: null,
  version: 0,
  content_version: 0,
});

const DefinitionFields = once(() => ({
  id: z.string().meta({ description: 'The library definition ULID.' }),
  key: z.string(),
  title: z.string(),
  kind: z.enum(LIBRARY_KINDS),
  description: z.string(),
}));
const WorkingCopyFields = once(() => ({
  owner_user_id: z.string().nullable(),
  classification: z.enum(CLASSIFICATION_CODES).nullable(),
  date_live: z.string().nullable(),
  review_due: z.string().nullable(),
  updated_at: z.string().nullable().meta({ description: 'null until the working copy is first written.' }),
  updated_by: z.string().nullable(),
}));

export const LibraryItem = once(() =>
  z
    .object({ ...DefinitionFields(), content_markdown: z.string().nullable(), ...WorkingCopyFields() })
    .meta({ id: 'LibraryItem', description: 'The definition and the project’s working copy of it (empty fields before the first edit).' }),
);
export type LibraryItem = z.infer<ReturnType<typeof LibraryItem>>;

export const LibraryItemSummary = once(() =>
  z
    .object({
      ...DefinitionFields(),
      content_bytes: z.number().int().min(0).meta({ description: 'Size of content_markdown in UTF-8 bytes; 0 when empty.' }),
      ...WorkingCopyFields(),
    })
    .meta({ id: 'LibraryItemSummary', description: 'A definition with a summary of the working copy, without its content.' }),
);
export type LibraryItemSummary = z.infer<ReturnType<typeof LibraryItemSummary>>;

const workingCopyOf = (w: Omit<WorkingCopy, 'content_markdown'>) => ({
  owner_user_id: w.owner_user_id,
  classification: w.classification,
  date_live: w.date_live,
  review_due: w.review_due,
  updated_at: w.updated_at,
  updated_by: w.updated_by,
});

export const libraryItemView = (d: LibraryDefinition, w: WorkingCopy): LibraryItem => ({ ...d, content_markdown: w.content_markdown, ...workingCopyOf(w) });

export const librarySummaryView = (d: LibraryDefinition, w: WorkingCopySummary): LibraryItemSummary => ({
  ...d,
  content_bytes: w.content_bytes,
  ...workingCopyOf(w),
});

/** The summary of a working copy not written yet, as the list shows it. */
export const emptySummary = (projectId: string, definitionId: string): WorkingCopySummary => {
  const { content_markdown: _content, ...summary } = emptyWorkingCopy(projectId, definitionId);
  return { ...summary, content_bytes: 0 };
};

/**
 * The working copy's rules beyond the schema (seed, Errors part 4): the content budget, the
 * Markdown policy, and review_due not before date_live as the merged copy has them, pointed at
 * whichever of the two dates the patch sent. The owner's membership needs a read: the caller checks it.
 * The policy's parsers (markdown-it, parse5: about 190 KB) load with the first content checked, so
 * that the library's reads never pay for them at a cold start.
 */
export async function workingCopyErrors(patch: UpdateLibraryItem, merged: WorkingCopy): Promise<FieldError[]> {
  const errors: FieldError[] = [];
  const content = patch.content_markdown;
  if (typeof content === 'string') {
    const bytes = Buffer.byteLength(content, 'utf8');
    if (bytes > CONTENT_BUDGET_BYTES) {
      errors.push({ pointer: '/content_markdown', code: 'content_too_large', detail: `is ${bytes} UTF-8 bytes; at most ${CONTENT_BUDGET_BYTES} are kept` });
    } else {
      const { markdownViolations } = await import('./markdown-policy.js');
      errors.push(...markdownViolations(content).map((v) => ({ pointer: '/content_markdown', code: v.code, detail: v.detail })));
    }
  }
  if (merged.date_live && merged.review_due && merged.review_due < merged.date_live) {
    const pointer = patch.review_due !== undefined ? '/review_due' : '/date_live';
    const detail =
      pointer === '/review_due' ? `must not precede date_live (${merged.date_live})` : `must not follow the working copy's review_due (${merged.review_due})`;
    errors.push({ pointer, code: 'review_due_before_date_live', detail });
  }
  return errors;
}
