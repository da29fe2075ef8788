/**
 * The policy library (issue 11, "Library"): a finite catalogue of policy and procedure definitions,
 * data with stable ULIDs so that {definition} path parameters stay valid across releases and
 * installations. A project keeps one working copy per definition.
 */
export const LIBRARY_KINDS = ['policy', 'procedure'] as const;
export type LibraryKind = (typeof LIBRARY_KINDS)[number];

export interface LibraryDefinition {
  id: string;
  key: string;
  title: string;
  kind: LibraryKind;
  description: string;
}

export const LIBRARY_DEFINITION_IDS = {
  informationSecurityPolicy: '01M84T2AZS9C8TZ6EGZG2RXYHK',
  sspAnnex: '01M84T2AZW5DBH673Z8AR39FF7',
  incidentResponsePlan: '01M84T2AZW7ANNV3P9CDY2G6F7',
  continuityPlan: '01M84T2AZWMPTE7ZXYVZHKVV8D',
  accessControlProcedure: '01M84T2AZX4RXC3AX1GVMEQTT1',
  changeManagementProcedure: '01M84T2AZXP9DEMRS0YA0MVDJ0',
} as const;

export const LIBRARY_DEFINITIONS: readonly LibraryDefinition[] = [
  {
    id: LIBRARY_DEFINITION_IDS.informationSecurityPolicy,
    key: 'information-security-policy',
    title: 'Information security policy',
    kind: 'policy',
    description: "The organisation's commitments, roles and responsibilities for protecting the system and its information.",
  },
  {
    id: LIBRARY_DEFINITION_IDS.sspAnnex,
    key: 'ssp-annex',
    title: 'System security plan annex',
    kind: 'policy',
    description: 'System-specific detail that accompanies the system security plan: boundaries, interfaces and local decisions.',
  },
  {
    id: LIBRARY_DEFINITION_IDS.incidentResponsePlan,
    key: 'incident-response-plan',
    title: 'Incident response plan',
    kind: 'procedure',
    description: 'How cyber security incidents are detected, reported, contained, eradicated and recovered from.',
  },
  {
    id: LIBRARY_DEFINITION_IDS.continuityPlan,
    key: 'continuity-plan',
    title: 'Continuity plan',
    kind: 'procedure',
    description: 'How the system keeps or restores its essential functions through a disruption, with backups and recovery targets.',
  },
  {
    id: LIBRARY_DEFINITION_IDS.accessControlProcedure,
    key: 'access-control-procedure',
    title: 'Access control procedure',
    kind: 'procedure',
    description: 'How access is requested, approved, reviewed and revoked, privileged access included.',
  },
  {
    id: LIBRARY_DEFINITION_IDS.changeManagementProcedure,
    key: 'change-management-procedure',
    title: 'Change management procedure',
    kind: 'procedure',
    description: 'How changes to the system are proposed, assessed for security impact, approved, made and recorded.',
  },
];

export const libraryDefinitionById = (id: string) => LIBRARY_DEFINITIONS.find((d) => d.id === id);
