import { describe, expect, it } from 'vitest';
import { CATALOGUE, CREDENTIAL_TYPES, EXPLICIT_ONLY, PERMISSIONS, dependenciesOf, permissionsOf, preset } from '../../../lib/domain/permissions.js';

describe('permission catalogue', () => {
  it('has 20 permission names', () => {
    expect(new Set(PERMISSIONS).size).toBe(20);
  });

  it('has 27 type and permission combinations: 4 Administration, 7 organisation, 16 project', () => {
    expect(permissionsOf('administration')).toHaveLength(4);
    expect(permissionsOf('organisation')).toHaveLength(7);
    expect(permissionsOf('project')).toHaveLength(16);
  });

  it('uses every permission name in at least one type', () => {
    const used = new Set(CREDENTIAL_TYPES.flatMap((t) => permissionsOf(t)));
    expect([...used].sort()).toEqual([...PERMISSIONS].sort());
  });

  it('keeps every dependency inside the same credential type', () => {
    for (const type of CREDENTIAL_TYPES) {
      for (const p of permissionsOf(type)) for (const d of dependenciesOf(type, p)) expect(permissionsOf(type)).toContain(d);
    }
  });

  it('gives the seed dependencies, such as edit-control-assessment needing view-controls and view-control-assessment', () => {
    expect(CATALOGUE.project['edit-control-assessment']).toEqual(['view-controls', 'view-control-assessment']);
    expect(CATALOGUE.organisation['manage-projects']).toEqual(['view-projects']);
    expect(CATALOGUE.administration['publish-provider-assurance-packages']).toEqual(['manage-org-hierarchy']);
  });

  it('never puts approval or publication in a preset', () => {
    for (const type of CREDENTIAL_TYPES) {
      for (const name of ['read', 'all'] as const) for (const p of EXPLICIT_ONLY) expect(preset(type, name)).not.toContain(p);
    }
  });
});
