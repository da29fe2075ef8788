import { newUlid } from '../../domain/ids.js';
import type { AuditContext } from '../../auth/administration.js';
import type { Administrator } from '../../auth/administrator.js';

export const OPERATOR: Administrator = { kind: 'operator' };

/** The audit context of a CLI change: the command stands where a route would. */
export const cliAudit = (command: string): AuditContext => ({ request_id: `cli-${newUlid()}`, method: 'CLI', route: `admin ${command}` });
