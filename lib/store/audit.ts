import { newUlid } from '../domain/ids.js';
import { itemAbsent } from './conditions.js';
import { keys } from './keys.js';
import type { WriteItem } from './transact.js';
import { putItem } from './update.js';

/**
 * Audit records hold identifiers, route templates, statuses and codes only: never query values,
 * request values or bearer secrets (seed, Events part 2). They are written per organisation and
 * day, so that one organisation's trail is a Query.
 */
export interface AuditRecord {
  kind: string;
  request_id: string;
  operation_id?: string;
  method: string;
  route: string;
  status: number;
  code?: string;
  actor_id?: string;
  token_id?: string;
  credential_type?: string;
  organisation_id?: string;
  target?: Record<string, string>;
  source_ip?: string;
  details?: Record<string, string | number | boolean | null>;
}

function auditItem(record: AuditRecord, at: Date, sortKey?: string) {
  const id = newUlid(at.getTime());
  const day = at.toISOString().slice(0, 10);
  return {
    ...keys.audit(record.organisation_id ?? 'installation', day, sortKey ?? `${at.toISOString()}#${id}`),
    entity: 'audit',
    id,
    at: at.toISOString(),
    ...record,
  };
}

export function auditWrite(record: AuditRecord, at: Date): WriteItem {
  return { kind: 'put', item: auditItem(record, at) };
}

export async function writeAudit(record: AuditRecord, at: Date): Promise<void> {
  await putItem(auditItem(record, at));
}

/** Seed, Events part 2: repeated 429 events are sampled to one per IP per minute. */
export async function writeSampledRateLimitAudit(record: AuditRecord, at: Date): Promise<void> {
  const minute = Math.floor(at.getTime() / 60_000);
  const item = auditItem(record, at, `RATE_LIMITED#${record.source_ip ?? 'unknown'}#${minute}`);
  await putItem(item, itemAbsent());
}
