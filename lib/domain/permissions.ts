/**
 * The permission catalogue of the seed's Authentication part: 20 permission names and 27 type and
 * permission combinations (4 Administration, 7 organisation, 16 project), each with its
 * dependencies within the same credential type.
 */
export const CREDENTIAL_TYPES = ['administration', 'organisation', 'project'] as const;
export type CredentialType = (typeof CREDENTIAL_TYPES)[number];

export const PERMISSIONS = [
  'manage-org-hierarchy',
  'publish-provider-assurance-packages',
  'view-restricted-provider-artefacts',
  'upload-restricted-provider-artefacts',
  'view-projects',
  'manage-projects',
  'view-contacts',
  'manage-contacts',
  'view-registers',
  'manage-registers',
  'view-controls',
  'view-control-assessment',
  'edit-control-implementation',
  'edit-control-assessment',
  'approve-edits',
  'approve-assessments',
  'view-docsuite',
  'generate-docsuite',
  'view-tasks',
  'manage-tasks',
] as const;
export type Permission = (typeof PERMISSIONS)[number];

type Catalogue = Record<CredentialType, Partial<Record<Permission, readonly Permission[]>>>;

/** For each credential type: the permissions it may carry, and what each needs alongside it. */
export const CATALOGUE: Catalogue = {
  administration: {
    'manage-org-hierarchy': [],
    'publish-provider-assurance-packages': ['manage-org-hierarchy'],
    'view-restricted-provider-artefacts': ['manage-org-hierarchy'],
    'upload-restricted-provider-artefacts': ['manage-org-hierarchy'],
  },
  organisation: {
    'manage-org-hierarchy': [],
    'view-projects': [],
    'manage-projects': ['view-projects'],
    'view-contacts': [],
    'manage-contacts': ['view-contacts'],
    'view-registers': [],
    'manage-registers': ['view-registers'],
  },
  project: {
    'view-projects': [],
    'manage-projects': ['view-projects'],
    'view-controls': [],
    'view-control-assessment': ['view-controls'],
    'edit-control-implementation': ['view-controls'],
    'edit-control-assessment': ['view-controls', 'view-control-assessment'],
    'approve-edits': ['view-controls'],
    'approve-assessments': ['view-controls', 'view-control-assessment'],
    'view-contacts': [],
    'view-registers': [],
    'manage-registers': ['view-registers'],
    'view-docsuite': [],
    'generate-docsuite': ['view-docsuite'],
    'view-tasks': [],
    'manage-tasks': ['view-tasks'],
    'view-restricted-provider-artefacts': ['view-controls'],
  },
};

/**
 * What the console's user administration needs: installation access the operator grants to a
 * person and the console reads live. They are never token abilities, so the API's catalogue above
 * stays the contract's 20; manage-super-users is needed on top of manage-users for anything done to
 * a super user (Authentication part 9).
 */
export const CONSOLE_PERMISSIONS = ['manage-users', 'manage-super-users'] as const;
export type ConsolePermission = (typeof CONSOLE_PERMISSIONS)[number];

export const isConsolePermission = (name: string): name is ConsolePermission => (CONSOLE_PERMISSIONS as readonly string[]).includes(name);

/** Seed, Authentication part 8: these must always be picked one by one. */
export const EXPLICIT_ONLY: readonly Permission[] = ['approve-edits', 'approve-assessments', 'publish-provider-assurance-packages'];

/**
 * Names that earlier development builds accepted. The seed's Versioning part 3 says they are not
 * accepted; issuance names them as retired so the operator knows to pick current names.
 */
export const RETIRED_ABILITIES: readonly string[] = [
  'read',
  'write',
  'admin',
  'api',
  'view-assessments',
  'edit-controls',
  'manage-organisation',
  'manage-evidence',
];

export function isPermission(name: string): name is Permission {
  return (PERMISSIONS as readonly string[]).includes(name);
}

export function permissionsOf(type: CredentialType): Permission[] {
  return Object.keys(CATALOGUE[type]) as Permission[];
}

export function dependenciesOf(type: CredentialType, permission: Permission): readonly Permission[] {
  return CATALOGUE[type][permission] ?? [];
}

/** Presets as the issuing interface offers them; approval and publication are never in one. */
export function preset(type: CredentialType, name: 'read' | 'all'): Permission[] {
  const candidates = permissionsOf(type).filter((p) => !EXPLICIT_ONLY.includes(p));
  if (name === 'all') return candidates;
  return candidates.filter((p) => p.startsWith('view-'));
}
