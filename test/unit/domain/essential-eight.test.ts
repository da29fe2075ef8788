import { describe, expect, it } from 'vitest';
import { E8_LEVELS, E8_STRATEGIES, type E8Control, essentialEightMaturity, meetsTarget, strategiesOf } from '../../../lib/domain/essential-eight.js';
import { ismRelease } from '../../support/document-model.js';

const TOPIC = (topic: string) => ['Guidelines for system hardening', 'Section', topic];

function control(id: string, topic: string, levels: string[], outcome: string | null, applicability: 'y' | 'n' = 'y', statement = ''): E8Control {
  return { id, path: TOPIC(topic), statement, essential_eight: levels, applicability, assessment: { outcome } };
}

const strategy = (controls: E8Control[], key: string) => essentialEightMaturity(controls).find((s) => s.key === key)!;

describe('strategiesOf', () => {
  it('places a control by its topic', () => {
    expect(strategiesOf({ path: TOPIC('Application control'), statement: '' })).toEqual(['application-control']);
  });

  it('splits patching topics by the software the statement names', () => {
    const topic = TOPIC('Mitigating known vulnerabilities');
    expect(strategiesOf({ path: topic, statement: 'Patches for vulnerabilities in operating systems of workstations are applied.' })).toEqual([
      'patch-operating-systems',
    ]);
    expect(strategiesOf({ path: topic, statement: 'Patches for vulnerabilities in online services are applied.' })).toEqual(['patch-applications']);
    expect(strategiesOf({ path: topic, statement: 'Patches for vulnerabilities in firmware are applied.' })).toEqual(['patch-operating-systems']);
  });

  it('counts a patching control that names no software towards both patch strategies', () => {
    expect(strategiesOf({ path: TOPIC('Scanning for unmitigated vulnerabilities'), statement: 'An automated method of asset discovery is used.' })).toEqual([
      'patch-applications',
      'patch-operating-systems',
    ]);
  });

  it('counts logging, incident and unknown topics towards every strategy', () => {
    expect(strategiesOf({ path: TOPIC('Event log monitoring'), statement: '' })).toHaveLength(8);
    expect(strategiesOf({ path: TOPIC('A topic of a later release'), statement: '' })).toHaveLength(8);
  });

  it('gives every strategy controls at every level of the real ISM release', () => {
    const tagged = ismRelease().entries.filter((e) => e.essential_eight.length);
    for (const { key } of E8_STRATEGIES) {
      for (const level of E8_LEVELS) {
        const own = tagged.filter((e) => e.essential_eight.includes(level) && strategiesOf(e).includes(key) && strategiesOf(e).length < 8);
        expect(own.length, `${key} ${level}`).toBeGreaterThan(0);
      }
    }
  });
});

describe('essentialEightMaturity', () => {
  it('achieves the highest level whose applicable controls are all effective', () => {
    const result = strategy(
      [
        control('a', 'Application control', ['ML1', 'ML2', 'ML3'], 'effective'),
        control('b', 'Application control', ['ML2', 'ML3'], 'effective'),
        control('c', 'Application control', ['ML3'], 'ineffective'),
      ],
      'application-control',
    );
    expect(result.achieved).toBe('ML2');
    expect(result.heldBackBy).toEqual(['c']);
  });

  it('is ML0 when an ML1 control is not assessed effective, and names it', () => {
    const result = strategy(
      [control('a', 'Application control', ['ML1', 'ML2'], null), control('b', 'Application control', ['ML2'], 'effective')],
      'application-control',
    );
    expect(result.achieved).toBe('ML0');
    expect(result.heldBackBy).toEqual(['a']);
    expect(result.levels[1]).toEqual({ level: 'ML2', required: 2, effective: 1, blockers: ['a'] });
  });

  it('does not count a level above one that fails', () => {
    const result = strategy(
      [control('a', 'Application control', ['ML1'], 'ineffective'), control('b', 'Application control', ['ML2', 'ML3'], 'effective')],
      'application-control',
    );
    expect(result.achieved).toBe('ML0');
  });

  it('ignores controls that do not apply', () => {
    const result = strategy(
      [control('a', 'Application control', ['ML1', 'ML2', 'ML3'], 'effective'), control('b', 'Application control', ['ML1'], null, 'n')],
      'application-control',
    );
    expect(result.achieved).toBe('ML3');
    expect(result.levels[0]).toMatchObject({ required: 1, effective: 1 });
  });

  it('holds every strategy back on a shared logging control', () => {
    const results = essentialEightMaturity([control('log', 'Event log monitoring', ['ML2', 'ML3'], 'ineffective')]);
    expect(results.map((r) => r.achieved)).toEqual(Array(8).fill('ML1'));
    expect(results.every((r) => r.heldBackBy.includes('log'))).toBe(true);
  });
});

describe('meetsTarget', () => {
  it('compares levels in order, with no target always met', () => {
    expect(meetsTarget('ML2', 'ML2')).toBe(true);
    expect(meetsTarget('ML3', 'ML1')).toBe(true);
    expect(meetsTarget('ML1', 'ML2')).toBe(false);
    expect(meetsTarget('ML0', 'ML1')).toBe(false);
    expect(meetsTarget('ML0', 'none')).toBe(true);
  });
});
