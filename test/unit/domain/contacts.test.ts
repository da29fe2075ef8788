import { describe, expect, it } from 'vitest';
import { contactView, CreateContact, UpdateContact } from '../../../lib/domain/contacts.js';

describe('CreateContact', () => {
  it('takes a name alone', () => {
    expect(CreateContact().parse({ name: 'Sam Operator' })).toEqual({ name: 'Sam Operator' });
  });

  it('refuses a telephone number with letters and an email that is not one', () => {
    expect(CreateContact().safeParse({ name: 'Sam', phone: 'call me' }).error?.issues[0]?.path).toEqual(['phone']);
    expect(CreateContact().safeParse({ name: 'Sam', email: 'sam' }).error?.issues[0]?.path).toEqual(['email']);
  });
});

describe('UpdateContact', () => {
  it('clears an optional property with null', () => {
    expect(UpdateContact().parse({ role: null })).toEqual({ role: null });
  });

  it('refuses a patch that changes nothing', () => {
    expect(UpdateContact().safeParse({}).success).toBe(false);
  });
});

describe('contactView', () => {
  it('shows a contact without its version, status and organisation', () => {
    const contact = {
      id: 'C',
      system_id: 'S',
      name: 'Sam',
      role: null,
      email: null,
      phone: null,
      organisation_name: null,
      created_at: 'a',
      updated_at: 'b',
    };
    expect(contactView({ ...contact, version: 2, status: 'active', organisation_id: 'O' })).toEqual(contact);
  });
});
