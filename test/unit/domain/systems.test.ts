import { describe, expect, it } from 'vitest';
import { CreateSystem, systemView, UpdateSystem } from '../../../lib/domain/systems.js';
import { buildSystem } from '../../support/factories.js';

const system = buildSystem({ short_code: 'HR-PAY', description: 'Payroll' });

describe('CreateSystem', () => {
  it('upper-cases the short code', () => {
    expect(CreateSystem().parse({ name: 'Payroll', short_code: 'hr-pay' }).short_code).toBe('HR-PAY');
  });

  it.each([['H'], ['-HR'], ['HR-'], ['HR PAY'], ['ÄBC'], ['A'.repeat(17)]])('refuses the short code %j', (code) => {
    expect(CreateSystem().safeParse({ name: 'Payroll', short_code: code }).success).toBe(false);
  });

  it('takes a code of 16 characters', () => {
    expect(CreateSystem().safeParse({ name: 'Payroll', short_code: 'A'.repeat(16) }).success).toBe(true);
  });
});

describe('UpdateSystem', () => {
  it('clears the description with null', () => {
    expect(UpdateSystem().parse({ description: null })).toEqual({ description: null });
  });

  it('refuses a patch that changes nothing', () => {
    expect(UpdateSystem().safeParse({}).success).toBe(false);
  });
});

describe('systemView', () => {
  it('shows the whole identity, without the version, with hierarchy authority', () => {
    expect(systemView(system, true)).toEqual({
      id: system.id,
      organisation_id: system.organisation_id,
      name: system.name,
      short_code: 'HR-PAY',
      description: 'Payroll',
      created_at: system.created_at,
      updated_at: system.updated_at,
      redacted_fields: [],
    });
  });

  it('shows the minimal discovery view otherwise, naming what it leaves out', () => {
    expect(systemView(system, false)).toEqual({
      id: system.id,
      organisation_id: system.organisation_id,
      name: system.name,
      short_code: 'HR-PAY',
      redacted_fields: ['description', 'created_at', 'updated_at'],
    });
  });
});
