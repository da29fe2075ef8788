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

export interface LevelResult {
  level: E8Level;
  /** Applicable controls this level requires of the strategy. */
  required: number;
  effective: number;
  /** Ids of the required controls not assessed effective. */
  blockers: string[];
}

export interface StrategyMaturity {
  key: StrategyKey;
  name: string;
  /** The highest level that holds together with every level below it. */
  achieved: Maturity;
  levels: LevelResult[];
  /** The blockers of the first level that does not hold: what stands between the strategy and its next level. */
  heldBackBy: string[];
}

/**
 * Per strategy, the achieved maturity: the highest level whose applicable controls are all
 * assessed effective, and every level below too (the levels build on one another). A control
 * excluded from the project does not count; a level with no applicable control holds.
 */
export function essentialEightMaturity(controls: readonly E8Control[]): StrategyMaturity[] {
  const tagged = controls.filter((c) => c.applicability === 'y' && c.essential_eight.length > 0);
  return E8_STRATEGIES.map(({ key, name }) => {
    const own = tagged.filter((c) => strategiesOf(c).includes(key));
    const levels = E8_LEVELS.map((level): LevelResult => {
      const required = own.filter((c) => c.essential_eight.includes(level));
      const blockers = required.filter((c) => c.assessment.outcome !== 'effective').map((c) => c.id);
      return { level, required: required.length, effective: required.length - blockers.length, blockers };
    });
    const firstUnmet = levels.findIndex((l) => l.blockers.length > 0);
    const achieved: Maturity = firstUnmet === -1 ? 'ML3' : firstUnmet === 0 ? 'ML0' : E8_LEVELS[firstUnmet - 1]!;
    return { key, name, achieved, levels, heldBackBy: firstUnmet === -1 ? [] : levels[firstUnmet]!.blockers };
  });
}

/** Whether `achieved` reaches `target` ('none' is always reached). */
export function meetsTarget(achieved: Maturity, target: 'none' | E8Level): boolean {
  if (target === 'none') return true;
  return achieved !== 'ML0' && E8_LEVELS.indexOf(achieved) >= E8_LEVELS.indexOf(target);
}
