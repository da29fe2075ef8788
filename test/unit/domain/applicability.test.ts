import { describe, expect, it } from 'vitest';
import { inConflict, plannedControls, recalculated, recommendationFor, type Facts } from '../../../lib/domain/applicability.js';
import type { CatalogueEntry } from '../../../lib/domain/oscal.js';
import { buildCatalogueEntry } from '../../support/factories.js';

const NONE: Facts = { organisation: {}, system: {}, scope: {} };
const entry = (over: Partial<CatalogueEntry>) => buildCatalogueEntry({ id: 'x-1', ...over });

describe('planned controls', () => {
  it('includes entries tagged for the classification by default', () => {
    const planned = plannedControls([entry({}), entry({ id: 'x-2', classifications: ['S', 'TS'] })], 'P', 'none', NONE);
    expect(planned.map((p) => [p.entry.id, p.applicability, p.origin])).toEqual([['x-1', 'y', 'default_inclusion']]);
  });

  it('adds entries of the Essential Eight target the classification lacks, excluded by classification', () => {
    const planned = plannedControls([entry({ id: 'e8', classifications: ['TS'], essential_eight: ['ML2'] })], 'P', 'ML2', NONE);
    expect(planned.map((p) => [p.applicability, p.origin])).toEqual([['n', 'classification_exclusion']]);
  });

  it('follows a suggested exclusion from the scope as an initial recommendation', () => {
    const wireless = entry({ path: ['Guidelines for networking', 'Wireless networks', 'Topic'] });
    const [planned] = plannedControls([wireless], 'P', 'none', { ...NONE, scope: { wireless_networks: 'no' } });
    expect(planned).toMatchObject({ applicability: 'n', origin: 'initial_recommendation', recommendation: { value: 'n', rules: ['no-wireless-networks'] } });
  });

  it('suggests nothing while the context says nothing', () => {
    expect(recommendationFor(entry({ path: ['Guidelines for networking', 'Wireless networks', 'T'] }), NONE)).toBeNull();
  });
});

describe('recalculation', () => {
  const exclude = { value: 'n' as const, rules: ['r'], reasons: ['why'] };

  it('never overwrites an explicit user choice', () => {
    expect(recalculated({ applicability: 'y', origin: 'explicit_user_choice' }, exclude)).toEqual({ applicability: 'y', origin: 'explicit_user_choice' });
  });

  it('keeps values of unknown provenance and classification exclusions', () => {
    expect(recalculated({ applicability: 'y', origin: 'unknown_historical_provenance' }, exclude).origin).toBe('unknown_historical_provenance');
    expect(recalculated({ applicability: 'n', origin: 'classification_exclusion' }, null).applicability).toBe('n');
  });

  it('moves system-set values with the recommendation, both ways', () => {
    expect(recalculated({ applicability: 'y', origin: 'default_inclusion' }, exclude)).toEqual({ applicability: 'n', origin: 'initial_recommendation' });
    expect(recalculated({ applicability: 'n', origin: 'initial_recommendation' }, null)).toEqual({ applicability: 'y', origin: 'default_inclusion' });
  });

  it('calls a choice that differs from the recommendation a conflict', () => {
    expect(inConflict({ applicability: 'y', origin: 'explicit_user_choice' }, exclude)).toBe(true);
    expect(inConflict({ applicability: 'y', origin: 'default_inclusion' }, exclude)).toBe(false);
  });
});
