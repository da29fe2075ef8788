import { describe, expect, it } from 'vitest';
import { StoredItemInvalid } from '../../../lib/store/entity.js';
import { assembled } from '../../../lib/store/library.js';
import { keys } from '../../../lib/store/keys.js';

const PROJECT = '01M84T2AZS9C8TZ6EGZG2RXYH0';
const DEFINITION = '01M84T2AZS9C8TZ6EGZG2RXYHK';
const item = (version: number, contentVersion: number) => ({
  ...keys.libraryItem(PROJECT, DEFINITION),
  project_id: PROJECT,
  definition_id: DEFINITION,
  owner_user_id: null,
  classification: 'P',
  date_live: null,
  review_due: null,
  updated_at: '2026-01-01T00:00:00.000Z',
  updated_by: 'u',
  content_bytes: 4,
  version,
  content_version: contentVersion,
});
const content = (version: number) => ({
  ...keys.libraryContent(PROJECT, DEFINITION),
  project_id: PROJECT,
  definition_id: DEFINITION,
  content_markdown: 'Text',
  version,
});

describe('a working copy from its two items', () => {
  it('takes the content the item names', () => {
    expect(assembled(item(3, 2), content(2))).toMatchObject({ version: 3, content_version: 2, content_markdown: 'Text', classification: 'P' });
  });

  it('is torn when the content is of another version', () => {
    expect(assembled(item(3, 3), content(2))).toBeUndefined();
  });

  it('is torn when the content item is missing', () => {
    expect(assembled(item(3, 3), undefined)).toBeUndefined();
  });

  it('has no content at content version 0, whatever content item is read', () => {
    expect(assembled(item(2, 0), content(1))?.content_markdown).toBeNull();
  });

  it('leaves the stored size out of the record', () => {
    expect(assembled(item(1, 0), undefined)).not.toHaveProperty('content_bytes');
  });
});

describe('a working copy as stored', () => {
  it('reads without content when stored before the content had an item of its own', () => {
    const { content_version: _v, content_bytes: _b, ...older } = item(2, 0);
    expect(assembled({ ...older, content_markdown: 'Inline' }, undefined)).toMatchObject({ version: 2, content_version: 0, content_markdown: null });
  });

  it('refuses a small item that fails its schema, naming its key', () => {
    expect(() => assembled({ ...item(1, 0), classification: 'SECRET' }, undefined)).toThrow(StoredItemInvalid);
    expect(() => assembled({ ...item(1, 0), classification: 'SECRET' }, undefined)).toThrow(`PROJECT#${PROJECT}|LIBRARY#${DEFINITION}`);
  });

  it('refuses a content item that fails its schema, naming its key', () => {
    expect(() => assembled(item(2, 2), { ...content(2), content_markdown: null })).toThrow(`PROJECT#${PROJECT}|LIBCONTENT#${DEFINITION}`);
  });
});
