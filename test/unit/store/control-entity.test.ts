import { describe, expect, it } from 'vitest';
import { holdsCopiedText, toApplicability, toControl } from '../../../lib/store/control-entity.js';
import { StoredItemInvalid } from '../../../lib/store/entity.js';
import { keyString } from '../../../lib/store/read.js';
import { controlItem } from '../../../lib/store/controls.js';
import { buildControl } from '../../support/factories.js';
import { readsStoredEntity } from '../../support/stored-entities.js';

describe('a stored control', () => {
  readsStoredEntity(toControl, controlItem(buildControl()), { workflow_state: 7 });

  it('leaves behind the catalogue text and provider words a control stored before issue 25 copied, so that no write carries them back', () => {
    const reference = { provider_id: 'P1', release_id: 'R1', assertion_id: 'A1', restricted: false };
    const older = {
      ...controlItem(buildControl({ provider_guidance: [reference] })),
      statement: 'The catalogue text.',
      classifications: ['P'],
      provider_guidance: [{ ...reference, responsibility: 'provider', implementation_status: 'implemented', guidance: 'Words.', guidance_truncated: false }],
    };
    const control = toControl(older);
    expect(Object.keys(control)).not.toContain('statement');
    expect(Object.keys(control)).not.toContain('classifications');
    expect(control.provider_guidance).toEqual([reference]);
  });

  it('reads a control stored before implementation status origins were kept', () => {
    const { implementation_status_origin: _o, ...older } = controlItem(buildControl({ implementation_status: 'implemented' }));
    expect(toControl(older).implementation_status_origin).toBeUndefined();
  });
});

describe('a control read through the applicability projection', () => {
  readsStoredEntity(toApplicability, controlItem(buildControl()), { applicability_origin: 'guessed' });

  it('keeps the attention index partition that recalculation compares', () => {
    const item = controlItem(buildControl({ recommendation: { value: 'n', rules: ['r'], reasons: ['because'] } }));
    expect(item.GSI1PK).toBeDefined();
    expect(toApplicability(item).GSI1PK).toBe(item.GSI1PK);
  });

  it('refuses an applicability outside y and n', () => {
    expect(() => toApplicability({ ...controlItem(buildControl()), applicability: 'maybe' })).toThrow(/does not match its schema/);
  });
});

describe('whether a stored control holds copied text', () => {
  const reference = { provider_id: 'P1', release_id: 'R1', assertion_id: 'A1', restricted: false };
  const item = controlItem(buildControl({ provider_guidance: [reference] }));

  it('sees the provider words a guidance reference stored before issue 25 held', () => {
    expect(holdsCopiedText({ ...item, provider_guidance: [{ ...reference, guidance: 'Words.' }] })).toBe(true);
  });

  it('sees none in references that hold their own fields only, or in a control without guidance', () => {
    const { provider_guidance: _g, ...unguided } = item;
    expect(holdsCopiedText(item)).toBe(false);
    expect(holdsCopiedText(unguided)).toBe(false);
  });

  it('refuses guidance that is not a list of references, naming the key', () => {
    const broken = () => holdsCopiedText({ ...item, provider_guidance: 'Words.' });
    expect(broken).toThrow(StoredItemInvalid);
    expect(broken).toThrow(keyString(item));
  });
});
