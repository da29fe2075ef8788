import { describe, expect, it } from 'vitest';
import {
  E8_LEVELS,
  E8_STRATEGIES,
  type E8Control,
  essentialEightMaturity,
  evidenceGrade,
  overallMaturity,
  overallTargetStatus,
  sampleOf,
  strategiesOf,
  targetStatus,
} from '../../../lib/domain/essential-eight.js';
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

  it('is ML0 when an ML1 control is concluded other than effective, and names it', () => {
    const result = strategy(
      [control('a', 'Application control', ['ML1', 'ML2'], 'no_visibility'), control('b', 'Application control', ['ML2'], 'effective')],
      'application-control',
    );
    expect(result).toMatchObject({ achieved: 'ML0', undetermined: null, heldBackBy: ['a'] });
    expect(result.levels[1]).toEqual({ level: 'ML2', required: 2, assessed: 2, effective: 1, blockers: ['a'], status: 'not_achieved' });
  });

  it('leaves a level not determined, not failed, while its controls are not all assessed', () => {
    const result = strategy(
      [
        control('a', 'Application control', ['ML1', 'ML2'], 'effective'),
        control('b', 'Application control', ['ML2'], null),
        control('c', 'Application control', ['ML3'], 'not_assessed'),
      ],
      'application-control',
    );
    expect(result).toMatchObject({ achieved: 'ML1', undetermined: 'ML2', atMost: 'ML3', heldBackBy: ['b'] });
    expect(result.levels.map((l) => [l.status, l.assessed, l.required])).toEqual([
      ['achieved', 1, 1],
      ['not_determined', 1, 2],
      ['not_determined', 0, 1],
    ]);
  });

  it('bounds a maturity not determined by the first level a failed control leaves not achieved', () => {
    const result = strategy(
      [control('a', 'Application control', ['ML1'], null), control('b', 'Application control', ['ML3'], 'ineffective')],
      'application-control',
    );
    expect(result).toMatchObject({ achieved: 'ML0', undetermined: 'ML1', atMost: 'ML2' });
  });

  it('counts a control met by a common control towards its level', () => {
    const result = strategy(
      [control('a', 'Application control', ['ML1'], 'common_control'), control('b', 'Application control', ['ML1'], 'effective')],
      'application-control',
    );
    expect(result.levels[0]).toMatchObject({ effective: 2, status: 'achieved' });
  });

  it('does not achieve a level with a failed control, whatever else is missing', () => {
    const result = strategy(
      [control('a', 'Application control', ['ML1'], 'ineffective'), control('b', 'Application control', ['ML1'], null)],
      'application-control',
    );
    expect(result).toMatchObject({ achieved: 'ML0', undetermined: null, atMost: 'ML0' });
    expect(result.levels[0]!.status).toBe('not_achieved');
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

describe('overallMaturity', () => {
  const at = (achieved: 'ML0' | 'ML1' | 'ML2' | 'ML3', atMost: 'ML0' | 'ML1' | 'ML2' | 'ML3') =>
    ({ achieved, atMost, undetermined: achieved === atMost ? null : 'ML3' }) as ReturnType<typeof essentialEightMaturity>[number];

  it('is the lowest strategy, settled when a settled strategy sits there', () => {
    expect(overallMaturity([at('ML2', 'ML2'), at('ML1', 'ML1'), at('ML1', 'ML3')])).toEqual({ achieved: 'ML1', atMost: 'ML1', undetermined: null });
  });

  it('is not determined above the lowest level when only undetermined strategies sit there, and bounded by the lowest they allow', () => {
    expect(overallMaturity([at('ML2', 'ML2'), at('ML0', 'ML3')])).toEqual({ achieved: 'ML0', atMost: 'ML2', undetermined: 'ML1' });
  });
});

describe('targetStatus', () => {
  const levels = (...statuses: string[]) => ({ levels: statuses.map((status) => ({ status })) }) as ReturnType<typeof essentialEightMaturity>[number];

  it('is met when every level up to the target is achieved', () => {
    expect(targetStatus(levels('achieved', 'achieved', 'not_achieved'), 'ML2')).toBe('met');
  });

  it('is not met once a level up to the target is not achieved, even with another not determined', () => {
    expect(targetStatus(levels('not_determined', 'not_achieved', 'achieved'), 'ML2')).toBe('not_met');
  });

  it('is not determined otherwise', () => {
    expect(targetStatus(levels('achieved', 'not_determined', 'not_achieved'), 'ML2')).toBe('not_determined');
  });

  it('combines the strategies: one not met decides, all met is met', () => {
    expect(overallTargetStatus([levels('achieved'), levels('not_determined'), levels('not_achieved')], 'ML1')).toBe('not_met');
    expect(overallTargetStatus([levels('achieved'), levels('not_determined')], 'ML1')).toBe('not_determined');
    expect(overallTargetStatus([levels('achieved'), levels('achieved')], 'ML1')).toBe('met');
  });
});

describe('evidenceGrade', () => {
  it('grades an evidence type as the Process Guide grades its method', () => {
    expect(evidenceGrade('Simulated macro execution test')).toBe('excellent');
    expect(evidenceGrade('Observed in the admin console')).toBe('good');
    expect(evidenceGrade('configuration export')).toBe('fair');
    expect(evidenceGrade('Screenshot')).toBe('fair');
    expect(evidenceGrade('Patching policy')).toBe('poor');
    expect(evidenceGrade('Interview notes')).toBe('poor');
  });

  it('leaves a type that names no graded method, or none, to the assessor', () => {
    expect(evidenceGrade('Miscellaneous')).toBeNull();
    expect(evidenceGrade(null)).toBeNull();
  });
});

describe('sampleOf', () => {
  it('reads the sample a rationale records', () => {
    expect(sampleOf('Observed the configuration on a sample of three servers. All compliant.')).toBe('sample of three servers');
    expect(sampleOf('Sampled 12 of 40 workstations; none ran macros.')).toBe('Sampled 12 of 40 workstations');
  });

  it('finds none where the rationale records none', () => {
    expect(sampleOf('Reviewed the policy.')).toBeNull();
    expect(sampleOf(null)).toBeNull();
  });
});
