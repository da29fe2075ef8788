import { newUlid } from '../../lib/domain/ids.js';
import { issueToken } from '../../lib/auth/issue.js';
import { permissionsOf } from '../../lib/domain/permissions.js';
import { recalculationMarker } from '../../lib/store/recalculations.js';
import { grantAccess } from '../../lib/store/identity.js';
import type { Release } from '../../lib/catalogue/store.js';
import type { StoredProject } from '../../lib/domain/projects.js';
import { keys } from '../../lib/store/keys.js';
import { asPopulationRun, startRunWrites } from '../../lib/store/population.js';
import { toProject } from '../../lib/store/projects.js';
import { getOne } from '../../lib/store/read.js';
import { commit } from '../../lib/store/transact.js';
import { createOrganisation, createProject, createUser } from './factories.js';

/** Who starts population runs in job-level tests: a user with organisation access, and a token of theirs. */
export interface PopulationStarter {
  userId: string;
  tokenId: string;
  organisationId: string;
}

/** A user with every organisation permission on a new organisation, and a token of theirs. */
export async function populationStarter(): Promise<PopulationStarter> {
  const userId = await createUser();
  const organisationId = (await createOrganisation({ created_by: userId })).id;
  await grantAccess(userId, { kind: 'organisation', id: organisationId }, permissionsOf('organisation'), new Date());
  const token = await issueToken(
    userId,
    { token_type: 'organisation', organisation_id: organisationId, name: 't', abilities: permissionsOf('organisation'), read_only: false },
    new Date(),
  );
  return { userId, tokenId: token.id, organisationId };
}

/** A new run of the project, started exactly as startPopulation starts one; returns its id. */
export async function startRun(projectId: string, starter: PopulationStarter): Promise<string> {
  const project = toProject((await getOne(keys.project(projectId)))!);
  const runId = newUlid();
  await commit(
    startRunWrites(project, asPopulationRun(await getOne(keys.projectPopulation(projectId))), {
      runId,
      userId: starter.userId,
      tokenId: starter.tokenId,
      now: new Date(),
    }).writes,
  );
  return runId;
}

/** A project of the release with a run started; nothing has delivered its job yet. */
export async function startedProject(
  release: Pick<Release, 'id' | 'version'>,
  starter: PopulationStarter,
  classification: StoredProject['classification'],
  target: StoredProject['essential_eight_target'] = 'none',
) {
  const project = await createProject({
    organisation_id: starter.organisationId,
    // A system the project only names, never stored: the population job reads none.
    system_id: newUlid(),
    name: 'Population test',
    ism_release_id: release.id,
    ism_release_version: release.version,
    classification,
    essential_eight_target: target,
    lifecycle_state: 'setup',
    population_status: 'not_started',
    created_by: starter.userId,
  });
  return { project, runId: await startRun(project.id, starter) };
}

/** Asks for a recalculation of the project, as a scope change by `starter` does: its marker, committed. */
export async function requestRecalculation(projectId: string, starter: PopulationStarter, now: Date): Promise<void> {
  await commit([
    recalculationMarker({
      subject: { project_id: projectId },
      organisationId: starter.organisationId,
      userId: starter.userId,
      tokenId: starter.tokenId,
      authority: { scope: { kind: 'organisation', id: starter.organisationId }, permissions: ['manage-projects', 'view-projects'] },
      now,
    }),
  ]);
}
