import * as z from 'zod';
import type { SourceAuthority } from '../../domain/register-rows.js';
import { atSystemLevel, definitionById, manifestOf, REGISTER_DEFINITIONS, RegisterDefinitionView, type RegisterDefinition } from '../../domain/registers.js';
import { notFound } from '../../errors.js';
import type { RowScope } from '../../store/registers.js';
import { keys } from '../../store/keys.js';
import { NoQuery, SystemParams, Ulid } from '../kernel/common.js';
import type { Caller, OperationContext } from '../kernel/operation.js';
import { operation } from './declare.js';
import { systemOf } from '../systems/access.js';
import { once } from '../../domain/validation.js';

export const RegisterParams = once(() => SystemParams().extend({ definition: Ulid }));
export type RegisterParams = z.output<ReturnType<typeof RegisterParams>>;

export const REGISTERS_PATH = '/organisations/{organisation}/systems/{system}/registers';

/** A definition this system exposes: system-owned and organisation-shared manual ones only. */
export const reachableDefinition = (id: string): RegisterDefinition | undefined => {
  const d = definitionById(id);
  return d && atSystemLevel(d) ? d : undefined;
};

/** Where a definition's rows live, seen from a system of the organisation. */
export const scopeOf = (d: RegisterDefinition, p: RegisterParams): RowScope =>
  d.owner === 'organisation' ? { owner: 'organisation', organisationId: p.organisation } : { owner: 'system', systemId: p.system };

/**
 * An organisation credential reads contacts with view-contacts, and never project controls or
 * document outputs (seed, boundary rule 1), so control and document references stay redacted here.
 */
export const systemLevelAuthority = (caller: Caller): SourceAuthority => ({
  contacts: caller.permissions.has('view-contacts'),
  controls: false,
  documents: false,
});

/** The system (404 outside the organisation) and a definition it exposes (404 otherwise). */
export function systemRegisterOf(ctx: OperationContext, p: RegisterParams): { definition: RegisterDefinition; scope: RowScope } {
  systemOf(ctx, p.organisation, p.system);
  const definition = reachableDefinition(p.definition);
  if (!definition) throw notFound();
  return { definition, scope: scopeOf(definition, p) };
}

/** Writes need manage-registers on a mutation-enabled credential (seed, Authentication 5). */
const writableBy = (caller: Caller) => caller.permissions.has('manage-registers') && !caller.readOnly;

export const listSystemRegisters = operation({
  id: 'listSystemRegisters',
  method: 'GET',
  path: REGISTERS_PATH,
  summary: "List the register definitions of a system: its own manual registers and the organisation's shared register.",
  description:
    'Each definition is its manifest: columns, types, enums and logical key. writable is true on a mutation-enabled credential with manage-registers. Generated and project-owned definitions are not listed at system level.',
  credential: ['organisation'],
  permission: { organisation: [['view-registers']] },
  success: 200,
  params: SystemParams,
  query: NoQuery,
  response: () => z.array(RegisterDefinitionView()),
  sideEffects: [],
  prefetch: ({ organisation, system }) => [keys.system(organisation, system)],
  handle: async (ctx, { params }) => {
    systemOf(ctx, params.organisation, params.system);
    const writable = writableBy(ctx.caller);
    return { data: REGISTER_DEFINITIONS.filter(atSystemLevel).map((d) => manifestOf(d, writable)) };
  },
});

export const getSystemRegister = operation({
  id: 'getSystemRegister',
  method: 'GET',
  path: `${REGISTERS_PATH}/{definition}`,
  summary: 'Read a register manifest: column IDs and types, required columns, enums, logical key and a writable hint.',
  description: 'Generated and project-owned definitions are not available at system level (404).',
  credential: ['organisation'],
  permission: { organisation: [['view-registers']] },
  success: 200,
  params: RegisterParams,
  query: NoQuery,
  response: RegisterDefinitionView,
  sideEffects: [],
  prefetch: ({ organisation, system }) => [keys.system(organisation, system)],
  handle: async (ctx, { params }) => {
    const { definition } = systemRegisterOf(ctx, params);
    return { data: manifestOf(definition, writableBy(ctx.caller)) };
  },
});

export const definitionOperations = [listSystemRegisters, getSystemRegister];
