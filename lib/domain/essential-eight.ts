/**
 * Essential Eight maturity from assessed controls. The ISM tags each control with the maturity
 * levels that require it (ML1, ML2, ML3: each level's own full list, not nested) but not with its
 * mitigation strategy; the strategy follows from the control's topic in the catalogue, as the
 * Essential Eight Maturity Model groups the same requirements.
 */
export const E8_LEVELS = ['ML1', 'ML2', 'ML3'] as const;
export type E8Level = (typeof E8_LEVELS)[number];
/** ML0 when not even ML1 holds. */
export type Maturity = 'ML0' | E8Level;

/** The eight strategies, in the maturity model's order. */
export const E8_STRATEGIES = [
  { key: 'patch-applications', name: 'Patch applications' },
  { key: 'patch-operating-systems', name: 'Patch operating systems' },
  { key: 'multi-factor-authentication', name: 'Multi-factor authentication' },
  { key: 'restrict-administrative-privileges', name: 'Restrict administrative privileges' },
  { key: 'application-control', name: 'Application control' },
  { key: 'restrict-office-macros', name: 'Restrict Microsoft Office macros' },
  { key: 'user-application-hardening', name: 'User application hardening' },
  { key: 'regular-backups', name: 'Regular backups' },
] as const;
export type StrategyKey = (typeof E8_STRATEGIES)[number]['key'];

const ALL: readonly StrategyKey[] = E8_STRATEGIES.map((s) => s.key);
const PATCHING: readonly StrategyKey[] = ['patch-applications', 'patch-operating-systems'];

/** Topics (the third element of a control's path) that belong to one strategy. */
const TOPICS: Record<string, StrategyKey> = {
  'Application control': 'application-control',
  'Microsoft Office macros': 'restrict-office-macros',
  'Hardening user application configurations': 'user-application-hardening',
  'Hardening operating system configurations': 'user-application-hardening',
  PowerShell: 'user-application-hardening',
  'Command Shell': 'user-application-hardening',
  'Multi-factor authentication': 'multi-factor-authentication',
  'Privileged access to systems': 'restrict-administrative-privileges',
  'Suspension of access to systems': 'restrict-administrative-privileges',
  'Separate privileged operating environments': 'restrict-administrative-privileges',
  'Administrative infrastructure': 'restrict-administrative-privileges',
  'Protecting credentials': 'restrict-administrative-privileges',
  'Setting credentials for built-in Administrator accounts, break glass accounts, local administrator accounts and service accounts':
    'restrict-administrative-privileges',
  'Operating system releases and versions': 'patch-operating-systems',
  'Performing and retaining backups': 'regular-backups',
  'Backup access': 'regular-backups',
  'Backup modification and deletion': 'regular-backups',
  'Testing restoration of backups': 'regular-backups',
};

/** Patching topics hold both patch strategies; the statement says which software a control is about. */
const PATCHING_TOPICS = new Set(['Scanning for unmitigated vulnerabilities', 'Mitigating known vulnerabilities', 'Cessation of support']);
const OPERATING_SYSTEMS = /operating systems|drivers|firmware/i;
const APPLICATIONS = /applications|online services|office productivity suites|web browsers|email clients|security products/i;

/**
 * The strategies a control counts towards. Logging and incident response controls, and any topic
 * a later release adds, count towards every strategy: the maturity model repeats them under each,
 * and counting an unknown control everywhere can only lower a level, never overstate it.
 */
export function strategiesOf(control: { path: string[]; statement: string }): readonly StrategyKey[] {
  const topic = control.path[2] ?? '';
  const strategy = TOPICS[topic];
  if (strategy) return [strategy];
  if (!PATCHING_TOPICS.has(topic)) return ALL;
  if (OPERATING_SYSTEMS.test(control.statement)) return ['patch-operating-systems'];
  if (APPLICATIONS.test(control.statement)) return ['patch-applications'];
  return PATCHING;
}

export interface E8Control {
  id: string;
  path: string[];
  statement: string;
  essential_eight: string[];
  applicability: 'y' | 'n';
  assessment: { outcome: string | null };
}

/**
 * What the assessment shows of one level of one strategy: achieved when every applicable control
 * it requires is assessed effective (or met by a common control, whose effectiveness the assessor
 * concluded where it is provided); not achieved once one of them is concluded otherwise; not
 * determined while, short of that, some are not assessed. Missing conclusions never count as a
 * failure: a level without them is not determined, not achieved.
 */
export type LevelStatus = 'achieved' | 'not_achieved' | 'not_determined';

export interface LevelResult {
  level: E8Level;
  /** Applicable controls this level requires of the strategy. */
  required: number;
  /** Those with a conclusion (an outcome other than not assessed). */
  assessed: number;
  /** Those assessed effective or met by a common control. */
  effective: number;
  /** Ids of the required controls not assessed effective (nor met by a common control). */
  blockers: string[];
  status: LevelStatus;
}

export interface StrategyMaturity {
  key: StrategyKey;
  name: string;
  /** The highest level achieved together with every level below it: what the conclusions show. */
  achieved: Maturity;
  /**
   * The level above `achieved` when its status is not determined: the strategy's maturity is then
   * at least `achieved`, and not known beyond it. Null when the maturity is settled.
   */
  undetermined: E8Level | null;
  /** The highest maturity the conclusions still allow: below the first level not achieved. `achieved` when settled. */
  atMost: Maturity;
  levels: LevelResult[];
  /** The blockers of the first level short of achieved (not achieved or not determined): what stands between the strategy and its next level. */
  heldBackBy: string[];
}

const isMet = (c: E8Control): boolean => c.assessment.outcome === 'effective' || c.assessment.outcome === 'common_control';
const isAssessed = (c: E8Control): boolean => c.assessment.outcome !== null && c.assessment.outcome !== 'not_assessed';

function statusOf(required: readonly E8Control[]): LevelStatus {
  if (required.some((c) => isAssessed(c) && !isMet(c))) return 'not_achieved';
  return required.every(isAssessed) ? 'achieved' : 'not_determined';
}

/**
 * Per strategy, the achieved maturity: the highest level whose applicable controls are all
 * assessed effective, and every level below too (the levels build on one another). A control
 * excluded from the project does not count; a level with no applicable control holds. Where the
 * first level short of achieved is only not determined, the maturity is a lower bound.
 */
export function essentialEightMaturity(controls: readonly E8Control[]): StrategyMaturity[] {
  const tagged = controls.filter((c) => c.applicability === 'y' && c.essential_eight.length > 0);
  return E8_STRATEGIES.map(({ key, name }) => {
    const own = tagged.filter((c) => strategiesOf(c).includes(key));
    const levels = E8_LEVELS.map((level): LevelResult => {
      const required = own.filter((c) => c.essential_eight.includes(level));
      const blockers = required.filter((c) => !isMet(c)).map((c) => c.id);
      return {
        level,
        required: required.length,
        assessed: required.filter(isAssessed).length,
        effective: required.length - blockers.length,
        blockers,
        status: statusOf(required),
      };
    });
    const firstUnmet = levels.findIndex((l) => l.status !== 'achieved');
    const achieved: Maturity = firstUnmet === -1 ? 'ML3' : firstUnmet === 0 ? 'ML0' : E8_LEVELS[firstUnmet - 1]!;
    const unmet = firstUnmet === -1 ? undefined : levels[firstUnmet]!;
    const failed = levels.findIndex((l) => l.status === 'not_achieved');
    return {
      key,
      name,
      achieved,
      undetermined: unmet?.status === 'not_determined' ? unmet.level : null,
      atMost: failed === -1 ? 'ML3' : failed === 0 ? 'ML0' : E8_LEVELS[failed - 1]!,
      levels,
      heldBackBy: unmet?.blockers ?? [],
    };
  });
}

export interface OverallMaturity {
  achieved: Maturity;
  undetermined: E8Level | null;
  atMost: Maturity;
}

const ORDER: readonly Maturity[] = ['ML0', ...E8_LEVELS];
const lowest = (levels: Maturity[]): Maturity => levels.reduce<Maturity>((low, l) => (ORDER.indexOf(l) < ORDER.indexOf(low) ? l : low), 'ML3');

/**
 * The organisation's maturity is its lowest strategy's: at least the lowest level the strategies
 * achieved, at most the lowest they still allow, and settled when the two meet (a settled
 * strategy sits at that level); otherwise not determined above the first.
 */
export function overallMaturity(strategies: readonly StrategyMaturity[]): OverallMaturity {
  const achieved = lowest(strategies.map((s) => s.achieved));
  const atMost = lowest(strategies.map((s) => s.atMost));
  return { achieved, atMost, undetermined: achieved === atMost ? null : E8_LEVELS[ORDER.indexOf(achieved)]! };
}

export type TargetStatus = 'met' | 'not_met' | 'not_determined';

/**
 * Whether a strategy reaches the target: met when every level up to it is achieved, not met once
 * one of them is not achieved (whatever is still missing), and otherwise not determined.
 */
export function targetStatus(strategy: StrategyMaturity, target: E8Level): TargetStatus {
  const upTo = strategy.levels.slice(0, E8_LEVELS.indexOf(target) + 1);
  if (upTo.some((l) => l.status === 'not_achieved')) return 'not_met';
  return upTo.every((l) => l.status === 'achieved') ? 'met' : 'not_determined';
}

/** The target over all strategies: not met when one strategy does not meet it, met when all do. */
export function overallTargetStatus(strategies: readonly StrategyMaturity[], target: E8Level): TargetStatus {
  const each = strategies.map((s) => targetStatus(s, target));
  if (each.includes('not_met')) return 'not_met';
  return each.every((t) => t === 'met') ? 'met' : 'not_determined';
}

/**
 * The Essential Eight Assessment Process Guide grades evidence by how directly it shows a control
 * working: excellent, a simulated activity that tests the control; good, the configuration reviewed
 * in the system itself; fair, a copy of the configuration (a report, an export, a screenshot);
 * poor, a policy or a statement of intent, written or spoken.
 */
export const EVIDENCE_GRADES = ['excellent', 'good', 'fair', 'poor'] as const;
export type EvidenceGrade = (typeof EVIDENCE_GRADES)[number];

/** Words of an evidence type that name its method, by grade; checked in grade order, the best first. */
const GRADE_WORDS: Record<EvidenceGrade, RegExp> = {
  excellent: /simulat|penetration|exploit|attempt|\btest/i,
  good: /observ|demonstrat|walk-?through|live |in the system|console|interface/i,
  fair: /screenshot|export|report|\blogs?\b|configuration|scan|listing|output|record/i,
  poor: /polic|procedure|\bplan\b|standard|interview|statement|attestation|verbal|discussion/i,
};

/**
 * The grade of an evidence item, from the type the assessor gave it (a free category such as
 * "configuration export"); null when the type names no method the guide grades, for the assessor
 * to grade.
 */
export function evidenceGrade(evidenceType: string | null): EvidenceGrade | null {
  if (!evidenceType) return null;
  return EVIDENCE_GRADES.find((grade) => GRADE_WORDS[grade].test(evidenceType)) ?? null;
}

/**
 * The sample a conclusion's rationale records ("a sample of three servers", "sampled 12 of 40
 * workstations"): the contract has no sample field, so the rationale is where an assessor writes it.
 */
export function sampleOf(rationale: string | null): string | null {
  const found = rationale ? /\bsample(?:d|s| size)?\b[^.;\n]*/i.exec(rationale) : null;
  return found ? found[0].trim() : null;
}
