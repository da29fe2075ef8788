import type { Classification, CatalogueEntry, MaturityLevel } from './oscal.js';

/**
 * Which catalogue entries a project gets, and their applicability. Pure: population and
 * recalculation feed it the release, the project and the context facts.
 *
 * Seed, Applicability context: `origin` tells default inclusion, initial recommendation, explicit
 * user choice, classification exclusion and unknown historical provenance apart.
 */
export const ORIGINS = [
  'default_inclusion',
  'initial_recommendation',
  'explicit_user_choice',
  'classification_exclusion',
  'unknown_historical_provenance',
] as const;
export type Origin = (typeof ORIGINS)[number];
export type Applicability = 'y' | 'n';

export interface Recommendation {
  value: Applicability;
  rules: string[];
  reasons: string[];
}

/** What recommendations read: canonical organisation and system context, and the project scope. */
export interface Facts {
  organisation: Record<string, unknown>;
  system: Record<string, unknown>;
  scope: Record<string, unknown>;
}

interface Rule {
  id: string;
  /** The group title the rule covers, at guideline (0), section (1) or topic (2) depth. */
  depth: 0 | 1 | 2;
  title: RegExp;
  reason: string;
  applies: (f: Facts) => boolean;
}

/**
 * Suggested exclusions: each names the part of the catalogue that the recorded context or scope
 * says is absent. They only ever suggest `n`; the assessor decides.
 */
const RULES: readonly Rule[] = [
  {
    id: 'no-outsourcing',
    depth: 1,
    title: /^Managed services and cloud services$/,
    reason: 'Neither the organisation nor the system uses managed or cloud service providers.',
    applies: (f) => f.system.hosting_model === 'no' && f.organisation.outsourced_delivery === 'no',
  },
  {
    id: 'no-internet-facing-services',
    depth: 1,
    title: /^(Service continuity for online services|Web application firewalls)$/,
    reason: 'The system offers no internet-facing services.',
    applies: (f) => f.system.internet_facing_services === 'no',
  },
  {
    id: 'no-third-party-privileged-access',
    depth: 2,
    title: /^Access to systems by service providers$/,
    reason: 'No third party holds privileged access to the system.',
    applies: (f) => f.system.third_party_privileged_access === 'no',
  },
  {
    id: 'no-wireless-networks',
    depth: 1,
    title: /^Wireless networks$/,
    reason: 'The scope has no wireless networks.',
    applies: (f) => f.scope.wireless_networks === 'no',
  },
  {
    id: 'no-mobile-devices',
    depth: 0,
    title: /enterprise mobility$/i,
    reason: 'The scope has no mobile devices.',
    applies: (f) => f.scope.mobile_devices === 'no',
  },
  {
    id: 'no-email-services',
    depth: 1,
    title: /^Email gateways and servers$/,
    reason: 'The scope runs no email services.',
    applies: (f) => f.scope.email_services === 'no',
  },
  {
    id: 'no-software-development',
    depth: 0,
    title: /software development$/i,
    reason: 'The scope includes no software development.',
    applies: (f) => f.scope.software_development === 'no',
  },
];

export function recommendationFor(entry: Pick<CatalogueEntry, 'path'>, facts: Facts): Recommendation | null {
  const matched = RULES.filter((r) => r.title.test(entry.path[r.depth] ?? '') && r.applies(facts));
  if (matched.length === 0) return null;
  return { value: 'n', rules: matched.map((r) => r.id), reasons: matched.map((r) => r.reason) };
}

export interface PlannedControl {
  entry: CatalogueEntry;
  applicability: Applicability;
  origin: Origin;
  recommendation: Recommendation | null;
}

/**
 * The project's controls: every entry tagged for its classification, plus the entries of its
 * Essential Eight target level that the classification does not carry (shown, but excluded by
 * classification until someone decides otherwise). Levels are matched by each entry's own tags,
 * since they are not strictly nested.
 */
export function plannedControls(
  entries: readonly CatalogueEntry[],
  classification: Classification,
  target: MaturityLevel | 'none',
  facts: Facts,
): PlannedControl[] {
  const planned: PlannedControl[] = [];
  for (const entry of entries) {
    const inClassification = entry.classifications.includes(classification);
    const inTarget = target !== 'none' && entry.essential_eight.includes(target);
    if (!inClassification && !inTarget) continue;
    const recommendation = recommendationFor(entry, facts);
    if (!inClassification) planned.push({ entry, applicability: 'n', origin: 'classification_exclusion', recommendation });
    else if (recommendation) planned.push({ entry, applicability: recommendation.value, origin: 'initial_recommendation', recommendation });
    else planned.push({ entry, applicability: 'y', origin: 'default_inclusion', recommendation: null });
  }
  return planned;
}

/**
 * Applicability after a recalculation. Decisions people made (explicit choices, and values whose
 * provenance is unknown, which may have been choices) and classification exclusions stay; values
 * the system set follow the new recommendation.
 */
export function recalculated(
  current: { applicability: Applicability; origin: Origin },
  recommendation: Recommendation | null,
): { applicability: Applicability; origin: Origin } {
  if (current.origin !== 'default_inclusion' && current.origin !== 'initial_recommendation') return current;
  return recommendation ? { applicability: recommendation.value, origin: 'initial_recommendation' } : { applicability: 'y', origin: 'default_inclusion' };
}

/** A decision that differs from what is recommended now: the "conflicts" attention filter. */
export function inConflict(control: { applicability: Applicability; origin: Origin }, recommendation: Recommendation | null): boolean {
  return control.origin === 'explicit_user_choice' && recommendation !== null && recommendation.value !== control.applicability;
}
