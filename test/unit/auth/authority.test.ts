import { describe, expect, it } from 'vitest';
import { effectivePermissions, satisfies } from '../../../lib/auth/authority.js';

describe('effectivePermissions', () => {
  it('is the intersection of selected and live permissions', () => {
    expect([...effectivePermissions('organisation', ['view-projects', 'view-contacts'], ['view-projects'])]).toEqual(['view-projects']);
  });

  it('drops a permission whose dependency is not held live', () => {
    expect([...effectivePermissions('organisation', ['view-projects', 'manage-projects'], ['manage-projects'])]).toEqual([]);
  });

  it('drops a permission of another credential type', () => {
    expect([...effectivePermissions('organisation', ['view-controls'], ['view-controls'])]).toEqual([]);
  });
});

describe('satisfies', () => {
  it('accepts any one alternative held in full', () => {
    expect(satisfies([['manage-org-hierarchy'], ['view-projects']], new Set(['view-projects']))).toBe(true);
  });

  it('refuses a partly held alternative', () => {
    expect(satisfies([['manage-projects', 'view-projects']], new Set(['view-projects']))).toBe(false);
  });

  it('refuses a credential type the operation does not list', () => {
    expect(satisfies(undefined, new Set(['view-projects']))).toBe(false);
  });
});
