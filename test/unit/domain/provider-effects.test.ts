import { describe, expect, it } from 'vitest';
import {
  type AssertionText,
  GUIDANCE_BUDGET,
  guidanceOf,
  providerEffects,
  type SelectedAssertion,
  sameGuidance,
  visibleGuidance,
  withProviderEffect,
} from '../../../lib/domain/provider-effects.js';
import { buildAssertion, buildSelectedAssertion } from '../../support/factories.js';

const assertion = (overrides: Partial<SelectedAssertion> = {}) =>
  buildSelectedAssertion({ id: 'R1-ism-0001', provider_id: 'P1', release_id: 'R1', control_id: 'ism-0001', ...overrides });

const inherited = providerEffects([assertion()]).get('ism-0001');
const guidanceOnly = providerEffects([assertion({ responsibility: 'shared' })]).get('ism-0001');

describe('providerEffects', () => {
  it('makes a provider-responsible, implemented assertion inherited', () => {
    expect(inherited?.inherited).toBe(true);
  });

  it.each([
    ['shared', { responsibility: 'shared' as const }],
    ['consumer', { responsibility: 'consumer' as const }],
    ['partially implemented', { implementation_status: 'partially_implemented' as const }],
    ['without a status', { implementation_status: null }],
  ])('does not make a %s assertion inherited, but shows its guidance', (_name, overrides) => {
    const effect = providerEffects([assertion(overrides)]).get('ism-0001');
    expect(effect).toMatchObject({ inherited: false, guidance: [{ assertion_id: 'R1-ism-0001' }] });
  });

  it('is inherited when any selected release carries the control, and lists every release in selection order', () => {
    const effect = providerEffects([assertion({ responsibility: 'shared' }), assertion({ id: 'R2-ism-0001', provider_id: 'P2', release_id: 'R2' })]).get(
      'ism-0001',
    );
    expect(effect?.inherited).toBe(true);
    expect(effect?.guidance.map((g) => g.release_id)).toEqual(['R1', 'R2']);
  });

  it('gives the control a reference to each assertion, without its words', () => {
    expect(providerEffects([assertion({ restricted: true })]).get('ism-0001')?.guidance).toEqual([
      { provider_id: 'P1', release_id: 'R1', assertion_id: 'R1-ism-0001', restricted: true },
    ]);
  });
});

describe('withProviderEffect', () => {
  it('sets ec on a control without a status', () => {
    expect(withProviderEffect({ implementation_status: null }, inherited)).toMatchObject({
      implementation_status: 'ec',
      implementation_status_origin: 'provider_assertion',
    });
  });

  it('keeps a status a person chose', () => {
    const chosen = { implementation_status: 'planned', implementation_status_origin: 'explicit_user_choice' as const };
    expect(withProviderEffect(chosen, inherited)).toMatchObject({ implementation_status: 'planned', implementation_status_origin: 'explicit_user_choice' });
  });

  it('keeps a status a person cleared', () => {
    const cleared = { implementation_status: null, implementation_status_origin: 'explicit_user_choice' as const };
    expect(withProviderEffect(cleared, inherited).implementation_status).toBeNull();
  });

  it('keeps a status of unknown origin, which may have been a choice', () => {
    expect(withProviderEffect({ implementation_status: 'implemented' }, inherited)).toMatchObject({
      implementation_status: 'implemented',
      implementation_status_origin: null,
    });
  });

  it('takes ec back when the control is no longer inherited', () => {
    const ec = { implementation_status: 'ec', implementation_status_origin: 'provider_assertion' as const };
    expect(withProviderEffect(ec, guidanceOnly)).toMatchObject({ implementation_status: null, implementation_status_origin: null });
    expect(withProviderEffect(ec, undefined)).toEqual({ implementation_status: null, implementation_status_origin: null, provider_guidance: [] });
  });

  it('always replaces the guidance, even under a chosen status', () => {
    const chosen = { implementation_status: 'planned', implementation_status_origin: 'explicit_user_choice' as const };
    expect(withProviderEffect(chosen, guidanceOnly).provider_guidance).toHaveLength(1);
  });
});

describe('visibleGuidance', () => {
  const guidance = providerEffects([assertion(), assertion({ id: 'R2-ism-0001', release_id: 'R2', restricted: true })]).get('ism-0001')!.guidance;

  it('hides restricted entries without view-restricted-provider-artefacts', () => {
    expect(visibleGuidance(guidance, new Set()).map((g) => g.release_id)).toEqual(['R1']);
  });

  it('shows them with it', () => {
    expect(visibleGuidance(guidance, new Set(['view-restricted-provider-artefacts']))).toHaveLength(2);
  });
});

describe('guidanceOf', () => {
  const reference = (assertionId: string, restricted = false) => ({ provider_id: 'P1', release_id: 'R1', assertion_id: assertionId, restricted });
  const text = (over: Partial<AssertionText> = {}): AssertionText => {
    const { id, responsibility, implementation_status, consumer_guidance, implementation_statement } = buildAssertion({
      consumer_guidance: 'Nothing further for tenants.',
      implementation_statement: 'The platform does it.',
      ...over,
    });
    return { id, responsibility, implementation_status, consumer_guidance, implementation_statement };
  };

  it('shows the assertion a reference names, with the reference', () => {
    const [entry] = guidanceOf([reference('A1', true)], () => text({ responsibility: 'shared' }));
    expect(entry).toEqual({
      provider_id: 'P1',
      release_id: 'R1',
      assertion_id: 'A1',
      responsibility: 'shared',
      implementation_status: 'implemented',
      guidance: 'Nothing further for tenants.',
      guidance_truncated: false,
      restricted: true,
    });
  });

  it('falls back to the implementation statement when the provider gave consumers no guidance', () => {
    expect(guidanceOf([reference('A1')], () => text({ consumer_guidance: null }))[0]?.guidance).toBe('The platform does it.');
  });

  it('leaves out a reference whose assertion is gone', () => {
    expect(guidanceOf([reference('A1'), reference('A2')], (r) => (r.assertion_id === 'A1' ? undefined : text()))).toHaveLength(1);
  });

  it('cuts each entry to an even share of the budget, by code point', () => {
    const long = '\u{1F512}'.repeat(GUIDANCE_BUDGET);
    const [first] = guidanceOf([reference('A1'), reference('A2')], () => text({ consumer_guidance: long }));
    expect(first?.guidance_truncated).toBe(true);
    expect([...first!.guidance!]).toHaveLength(GUIDANCE_BUDGET / 2);
    expect(first!.guidance).toBe('\u{1F512}'.repeat(GUIDANCE_BUDGET / 2));
  });
});

describe('sameGuidance', () => {
  const [stored] = providerEffects([assertion()]).get('ism-0001')!.guidance;

  it('holds references to the same assertions, in the same order, the same', () => {
    expect(sameGuidance([{ ...stored! }], [stored!])).toBe(true);
  });

  it('tells a reference to another assertion apart', () => {
    expect(sameGuidance([stored!], [{ ...stored!, assertion_id: 'R1-ism-0002' }])).toBe(false);
  });
});
