import type * as z from 'zod';
import type { SourceAuthority } from '../../domain/register-rows.js';
import { definitionById, type RegisterDefinition } from '../../domain/registers.js';
import type { StoredProject } from '../../domain/projects.js';
import { forbidden, notFound } from '../../errors.js';
import type { RowScope } from '../../store/registers.js';
import { Ulid } from '../kernel/common.js';
import type { Caller, OperationContext } from '../kernel/operation.js';
import { boundProjectOf, ProjectParams } from '../projects/access.js';
import type { RowPlace } from './engine.js';
import { once } from '../../domain/validation.js';

/**
 * What the project register operations share: which definitions a project sees, where their rows
 * live, what a project credential may read of the sources rows reference, and which writes it may make.
 */
export const PROJECT_REGISTERS_PATH = '/projects/{project}/registers';
export const ProjectRegisterParams = once(() => ProjectParams().extend({ definition: Ulid }));
export type ProjectRegisterParams = z.output<ReturnType<typeof ProjectRegisterParams>>;

/** Rows live in one scope per definition: the project, the project's system, or the organisation. */
export function projectScopeOf(d: RegisterDefinition, project: Pick<StoredProject, 'id' | 'system_id' | 'organisation_id'>): RowScope {
  if (d.owner === 'project') return { owner: 'project', projectId: project.id };
  if (d.owner === 'system') return { owner: 'system', systemId: project.system_id };
  return { owner: 'organisation', organisationId: project.organisation_id };
}

/** Seed, boundary rule 2: contacts need view-contacts, controls view-controls, documents view-docsuite. */
export const projectAuthority = (caller: Caller): SourceAuthority => ({
  contacts: caller.permissions.has('view-contacts'),
  controls: caller.permissions.has('view-controls'),
  documents: caller.permissions.has('view-docsuite'),
});

/** Only project-owned manual definitions of an editable project take writes, from a mutation-enabled credential with manage-registers. */
export const writableHere = (d: RegisterDefinition, caller: Caller, project: StoredProject) =>
  d.owner === 'project' && d.kind === 'manual' && caller.permissions.has('manage-registers') && !caller.readOnly && !project.archived;

/**
 * The bound project and a definition it sees (404 otherwise): every definition of the finite
 * catalogue, its own (manual and generated), its system's and the organisation's shared one.
 */
export function projectRegisterOf(ctx: OperationContext, p: ProjectRegisterParams): { project: StoredProject; definition: RegisterDefinition } {
  const project = boundProjectOf(ctx, p.project);
  const definition = definitionById(p.definition);
  if (!definition) throw notFound();
  return { project, definition };
}

export function placeOf(ctx: OperationContext, project: StoredProject, definition: RegisterDefinition): RowPlace {
  return {
    definition,
    scope: projectScopeOf(definition, project),
    authority: projectAuthority(ctx.caller),
    home: { systemId: project.system_id, projectId: project.id },
  };
}

/** Seed, note 1: only project-owned manual rows are writable; shared and generated ones say which they are. */
export function requireRowWrites(d: RegisterDefinition): void {
  if (d.kind === 'generated')
    throw forbidden('generated_register_read_only', 'This register is generated from the project controls; its rows cannot be written.');
  if (d.owner !== 'project')
    throw forbidden('shared_register_read_only', 'This register is shared with the project by its system or organisation; write its rows there.');
}

/** A definition reviews can name: manual ones only (seed: 404 for a generated definition). */
export function requireReviewable(d: RegisterDefinition): void {
  if (d.kind !== 'manual') throw notFound();
}
