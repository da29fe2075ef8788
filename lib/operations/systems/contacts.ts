import * as z from 'zod';
import { newUlid } from '../../domain/ids.js';
import { Contact, contactView, CreateContact, UpdateContact, type StoredContact } from '../../domain/contacts.js';
import { etagFor, requireIfMatch } from '../kernel/etag.js';
import { notFound } from '../../errors.js';
import { activeContact, contactCount, contactsPage, createContactWrites, updateContactWrites } from '../../store/contacts.js';
import { keys } from '../../store/keys.js';
import { NoQuery, PageQuery, SystemParams, Ulid } from '../kernel/common.js';
import type { OperationContext } from '../kernel/operation.js';
import { operation } from './declare.js';
import { systemOf } from './access.js';
import { urlOf } from '../kernel/router.js';
import { once } from '../../domain/validation.js';

const ETAG_KIND = 'contact';
const etagOf = (c: StoredContact) => etagFor(ETAG_KIND, c.id, c.version);
const ContactParams = once(() => SystemParams().extend({ contact: Ulid }));
const BASE = '/organisations/{organisation}/systems/{system}/contacts';

function contactOf(ctx: OperationContext, p: z.output<ReturnType<typeof ContactParams>>): StoredContact {
  systemOf(ctx, p.organisation, p.system);
  const contact = activeContact(ctx.prefetched(keys.contact(p.system, p.contact)));
  if (!contact) throw notFound();
  return contact;
}

export const listContacts = operation({
  id: 'listContacts',
  method: 'GET',
  path: BASE,
  summary: 'List the active contacts of a system, oldest first.',
  description: "Only active contacts are listed; the total is the system's count of active contacts.",
  credential: ['organisation'],
  permission: { organisation: [['view-contacts']] },
  success: 200,
  params: SystemParams,
  query: PageQuery,
  response: () => z.array(Contact()),
  paginated: true,
  sideEffects: [],
  prefetch: ({ organisation, system }) => [keys.system(organisation, system), keys.systemCounters(system)],
  handle: async (ctx, { params }) => {
    systemOf(ctx, params.organisation, params.system);
    const page = await contactsPage(params.system, ctx.page);
    return { data: page.map(contactView), total: contactCount(ctx.prefetched(keys.systemCounters(params.system))) };
  },
});

export const createContact = operation({
  id: 'createContact',
  method: 'POST',
  path: BASE,
  summary: 'Create a contact of this system.',
  description:
    'The contact starts active and belongs to this system: project contact lists and register contact references read it. Needs view-contacts as well as manage-contacts.',
  credential: ['organisation'],
  permission: { organisation: [['manage-contacts', 'view-contacts']] },
  success: 201,
  params: SystemParams,
  query: NoQuery,
  body: { schema: CreateContact, mediaType: 'application/json' },
  response: Contact,
  etag: true,
  idempotencyKey: true,
  sideEffects: ['Creates the contact', 'Writes an audit record'],
  prefetch: ({ organisation, system }) => [keys.system(organisation, system)],
  handle: async (ctx, { params, body }) => {
    systemOf(ctx, params.organisation, params.system);
    const at = ctx.now.toISOString();
    const contact: StoredContact = {
      id: newUlid(ctx.now.getTime()),
      system_id: params.system,
      organisation_id: params.organisation,
      name: body.name,
      role: body.role ?? null,
      email: body.email ?? null,
      phone: body.phone ?? null,
      organisation_name: body.organisation_name ?? null,
      created_at: at,
      updated_at: at,
      status: 'active',
      version: 1,
    };
    return {
      data: contactView(contact),
      etag: etagOf(contact),
      location: urlOf(getContact, { ...params, contact: contact.id }),
      auditTarget: { organisation: params.organisation, system: params.system, contact: contact.id },
      writes: createContactWrites(contact),
    };
  },
});

export const getContact = operation({
  id: 'getContact',
  method: 'GET',
  path: `${BASE}/{contact}`,
  summary: 'Read an active contact with its ETag.',
  description: 'A contact that is not active, or of another system, is 404.',
  credential: ['organisation'],
  permission: { organisation: [['view-contacts']] },
  success: 200,
  params: ContactParams,
  query: NoQuery,
  response: Contact,
  etag: true,
  sideEffects: [],
  prefetch: ({ organisation, system, contact }) => [keys.system(organisation, system), keys.contact(system, contact)],
  handle: async (ctx, { params }) => {
    const contact = contactOf(ctx, params);
    return { data: contactView(contact), etag: etagOf(contact) };
  },
});

export const updateContact = operation({
  id: 'updateContact',
  method: 'PATCH',
  path: `${BASE}/{contact}`,
  summary: 'Edit a contact (JSON merge patch, If-Match).',
  description:
    'Omitted properties are kept and null clears a nullable one. Needs view-contacts as well as manage-contacts; a contact that is not active is 404.',
  credential: ['organisation'],
  permission: { organisation: [['manage-contacts', 'view-contacts']] },
  success: 200,
  params: ContactParams,
  query: NoQuery,
  body: { schema: UpdateContact, mediaType: 'application/merge-patch+json' },
  response: Contact,
  etag: true,
  ifMatch: true,
  sideEffects: ['Updates the contact', 'Writes an audit record'],
  prefetch: ({ organisation, system, contact }) => [keys.system(organisation, system), keys.contact(system, contact)],
  handle: async (ctx, { params, body }) => {
    const current = contactOf(ctx, params);
    requireIfMatch(ctx.ifMatch, etagFor(ETAG_KIND, current.id, current.version));
    const next: StoredContact = { ...current, ...body, updated_at: ctx.now.toISOString(), version: current.version + 1 };
    return { data: contactView(next), etag: etagOf(next), writes: updateContactWrites(current, next) };
  },
});

export const contactOperations = [listContacts, createContact, getContact, updateContact];
