import { describe, expect, it } from 'vitest';
import { isValid as isUlid } from 'ulid';
import { redactedColumns } from '../../../lib/domain/register-rows.js';
import {
  atSystemLevel,
  definitionById,
  manifestOf,
  REGISTER_DEFINITION_IDS as IDS,
  REGISTER_DEFINITIONS,
  type RegisterDefinition,
} from '../../../lib/domain/registers.js';

const def = (id: string): RegisterDefinition => definitionById(id)!;
const asset = def(IDS.assetRegister);
const SYSTEM_LEVEL = { contacts: true, controls: false, documents: false };

describe('the register catalogue', () => {
  it('has the catalogue keys with unique ULIDs, owners and kinds', () => {
    expect(REGISTER_DEFINITIONS.map((d) => [d.key, d.owner, d.kind])).toEqual([
      ['risk-register', 'project', 'manual'],
      ['poam', 'project', 'manual'],
      ['exceptions', 'project', 'manual'],
      ['asset-register', 'system', 'manual'],
      ['third-party-register', 'system', 'manual'],
      ['contacts-directory', 'organisation', 'manual'],
      ['control-summary', 'project', 'generated'],
    ]);
    const ids = REGISTER_DEFINITIONS.map((d) => d.id);
    expect(ids.every((id) => isUlid(id))).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it.each(REGISTER_DEFINITIONS.map((d) => [d.key, d] as const))('%s is consistent: enums defined, logical key of required columns', (_key, d) => {
    const columns = new Map(d.columns.map((c) => [c.id, c]));
    expect(columns.size).toBe(d.columns.length);
    for (const c of d.columns) expect(c.type === 'enum').toBe(c.enum_id !== undefined && (d.enums[c.enum_id]?.length ?? 0) > 0);
    expect(Object.keys(d.enums).sort()).toEqual([...new Set(d.columns.flatMap((c) => (c.enum_id ? [c.enum_id] : [])))].sort());
    expect(d.logical_key.length).toBeGreaterThan(0);
    for (const k of d.logical_key) expect(columns.get(k)?.required).toBe(true);
  });

  it('exposes only system-owned and organisation-shared manual definitions at system level', () => {
    expect(REGISTER_DEFINITIONS.filter(atSystemLevel).map((d) => d.key)).toEqual(['asset-register', 'third-party-register', 'contacts-directory']);
  });

  it('requires no column at system level that an organisation credential cannot set', () => {
    for (const d of REGISTER_DEFINITIONS.filter(atSystemLevel)) {
      const hidden = redactedColumns(d, SYSTEM_LEVEL);
      expect(d.columns.filter((c) => c.required && hidden.includes(c.id))).toEqual([]);
    }
  });

  it('keeps system-scoped contact references out of the organisation-wide register', () => {
    expect(def(IDS.contactsDirectory).columns.filter((c) => c.type === 'contact_ref')).toEqual([]);
  });

  it('describes a definition as a manifest with a writable hint', () => {
    const m = manifestOf(asset, true);
    expect(m).toMatchObject({ key: 'asset-register', owner: 'system', kind: 'manual', logical_key: ['asset_tag'], writable: true });
    expect(m.columns.find((c) => c.id === 'notes')).toEqual({ id: 'notes', label: 'Notes', type: 'text', required: false, enum_id: null, max_length: 5000 });
    expect(m.enums).toEqual({ asset_type: expect.any(Array), classification: ['NC', 'OS', 'P', 'S', 'TS'] });
    expect(manifestOf(asset, false).writable).toBe(false);
  });
});
