import { describe, expect, it } from 'vitest';
import {
  CONTENT_BUDGET_BYTES,
  emptySummary,
  emptyWorkingCopy,
  libraryItemView,
  librarySummaryView,
  UpdateLibraryItem,
  type WorkingCopy,
  workingCopyErrors,
} from '../../../lib/domain/library.js';
import { LIBRARY_DEFINITION_IDS, libraryDefinitionById } from '../../../lib/domain/library-definitions.js';

const definition = libraryDefinitionById(LIBRARY_DEFINITION_IDS.continuityPlan)!;
const copy: WorkingCopy = {
  content_markdown: '# Continuity',
  owner_user_id: '01M84T2AZS9C8TZ6EGZG2RXYHA',
  classification: 'P',
  date_live: '2026-02-01',
  review_due: '2027-02-01',
  updated_at: '2026-01-05T00:00:00.000Z',
  updated_by: 'U',
};

describe('UpdateLibraryItem', () => {
  it('refuses a patch that changes nothing', () => {
    expect(UpdateLibraryItem().safeParse({}).success).toBe(false);
  });

  it('clears a field with null', () => {
    expect(UpdateLibraryItem().parse({ owner_user_id: null })).toEqual({ owner_user_id: null });
  });
});

describe('a working copy never written', () => {
  it('has every field empty at version 0', () => {
    expect(emptyWorkingCopy('P', definition.id)).toEqual({
      project_id: 'P',
      definition_id: definition.id,
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
  });

  it('is summarised without content, as zero bytes', () => {
    const { content_markdown: _c, ...rest } = emptyWorkingCopy('P', definition.id);
    expect(emptySummary('P', definition.id)).toEqual({ ...rest, content_bytes: 0 });
  });
});

describe('libraryItemView', () => {
  it('shows the definition with the working copy and its content', () => {
    expect(libraryItemView(definition, copy)).toEqual({ ...definition, ...copy });
  });
});

describe('librarySummaryView', () => {
  it('shows the definition with the size of the content in place of it', () => {
    const { content_markdown: _c, ...rest } = copy;
    expect(librarySummaryView(definition, { ...rest, content_bytes: 13 })).toEqual({ ...definition, ...rest, content_bytes: 13 });
  });
});

describe('workingCopyErrors', () => {
  it('finds nothing wrong with content in budget and dates in order', async () => {
    expect(await workingCopyErrors({ content_markdown: copy.content_markdown }, copy)).toEqual([]);
  });

  it('refuses content over the byte budget, counting UTF-8 bytes', async () => {
    const content = 'é'.repeat(CONTENT_BUDGET_BYTES / 2 + 1);
    expect(await workingCopyErrors({ content_markdown: content }, { ...copy, content_markdown: content })).toEqual([
      {
        pointer: '/content_markdown',
        code: 'content_too_large',
        detail: `is ${CONTENT_BUDGET_BYTES + 2} UTF-8 bytes; at most ${CONTENT_BUDGET_BYTES} are kept`,
      },
    ]);
  });

  it('refuses content that the Markdown policy forbids', async () => {
    const content = '<script>alert(1)</script>';
    expect((await workingCopyErrors({ content_markdown: content }, { ...copy, content_markdown: content })).map((e) => e.pointer)).toEqual([
      '/content_markdown',
    ]);
  });

  it('points at review_due when the patch moves it before date_live', async () => {
    expect(await workingCopyErrors({ review_due: '2026-01-01' }, { ...copy, review_due: '2026-01-01' })).toEqual([
      { pointer: '/review_due', code: 'review_due_before_date_live', detail: 'must not precede date_live (2026-02-01)' },
    ]);
  });

  it('points at date_live when the patch moves it past the stored review_due', async () => {
    expect(await workingCopyErrors({ date_live: '2027-03-01' }, { ...copy, date_live: '2027-03-01' })).toEqual([
      { pointer: '/date_live', code: 'review_due_before_date_live', detail: "must not follow the working copy's review_due (2027-02-01)" },
    ]);
  });
});
