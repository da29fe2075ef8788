import { describe } from 'vitest';
import { ceremonySchema, enrolmentLinkSchema, sessionSchema } from '../../../lib/store/console.js';
import { parseStored } from '../../../lib/store/entity.js';
import type { Item } from '../../../lib/store/read.js';
import { keys } from '../../../lib/store/keys.js';
import { readsStoredEntity } from '../../support/stored-entities.js';

const AT = '2026-01-01T00:00:00.000Z';

describe('a stored console session', () => {
  readsStoredEntity(
    (item: Item) => parseStored(sessionSchema(), item),
    {
      ...keys.consoleSession('hash'),
      entity: 'console-session',
      user_id: 'u',
      epoch: 0,
      created_at: AT,
      last_seen_at: AT,
      confirmed_at: AT,
      csrf: 'c',
      expires_at: AT,
      ttl: 1767225600,
    },
    { epoch: null },
  );
});

describe('a stored ceremony', () => {
  readsStoredEntity(
    (item: Item) => parseStored(ceremonySchema(), item),
    { ...keys.consoleCeremony('hash'), entity: 'console-ceremony', purpose: 'sign-in', challenge: 'x', expires_at: AT, ttl: 1767225600 },
    { purpose: 'sign-out' },
  );
});

describe('a stored enrolment link', () => {
  readsStoredEntity(
    (item: Item) => parseStored(enrolmentLinkSchema(), item),
    {
      ...keys.enrolmentLink('u'),
      entity: 'enrolment-link',
      user_id: 'u',
      link_hash: 'h',
      expires_at: AT,
      created_at: AT,
      created_by: 'admin',
      ttl: 1767225600,
    },
    { link_hash: undefined },
  );
});
