import { isValid as isUlid } from 'ulid';
import { describe, expect, it } from 'vitest';
import { LIBRARY_DEFINITION_IDS, LIBRARY_DEFINITIONS, libraryDefinitionById } from '../../../lib/domain/library-definitions.js';

describe('the library catalogue', () => {
  it('holds one definition per named ID, each a valid ULID', () => {
    expect([LIBRARY_DEFINITIONS.map((d) => d.id), LIBRARY_DEFINITIONS.every((d) => isUlid(d.id))]).toEqual([Object.values(LIBRARY_DEFINITION_IDS), true]);
  });

  it('gives each definition a key of its own', () => {
    expect(new Set(LIBRARY_DEFINITIONS.map((d) => d.key)).size).toBe(LIBRARY_DEFINITIONS.length);
  });
});

describe('libraryDefinitionById', () => {
  it('finds a definition by its ID', () => {
    expect(libraryDefinitionById(LIBRARY_DEFINITION_IDS.incidentResponsePlan)).toMatchObject({ key: 'incident-response-plan', kind: 'procedure' });
  });

  it('finds nothing for an unknown ID', () => {
    expect(libraryDefinitionById('01M84T2AZS9C8TZ6EGZG2RXYHA')).toBeUndefined();
  });
});
