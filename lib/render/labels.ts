import type { Origin } from '../domain/applicability.js';
import type { ALL_STATUSES, OUTCOMES, SEVERITIES } from '../domain/controls.js';
import type { DocumentControl } from '../domain/document-model.js';

/**
 * What people read for the codes a control carries. A code without a label (a value this table
 * does not know yet) shows as itself rather than disappearing.
 */
export const APPLICABILITY_LABELS: Record<string, string> = { y: 'Yes', n: 'No' };

export const ORIGIN_LABELS: Record<Origin, string> = {
  default_inclusion: 'Default inclusion',
  initial_recommendation: 'Initial recommendation',
  explicit_user_choice: 'Explicit user choice',
  classification_exclusion: 'Classification exclusion',
  unknown_historical_provenance: 'Unknown historical provenance',
};

export const STATUS_LABELS: Record<(typeof ALL_STATUSES)[number], string> = {
  not_implemented: 'Not implemented',
  planned: 'Planned',
  partially_implemented: 'Partially implemented',
  implemented: 'Implemented',
  alternate_control: 'Alternate control',
  ec: 'Effective through external provider',
};

export const OUTCOME_LABELS: Record<(typeof OUTCOMES)[number], string> = {
  effective: 'Effective',
  ineffective: 'Ineffective',
  no_visibility: 'No visibility',
  not_implemented: 'Not implemented',
  not_assessed: 'Not assessed',
  common_control: 'Common control',
};

export const SEVERITY_LABELS: Record<(typeof SEVERITIES)[number], string> = { critical: 'Critical', high: 'High', medium: 'Medium', low: 'Low' };

/** The default workflow's states; a configured workflow's own states show as their ids. */
export const WORKFLOW_LABELS: Record<string, string> = {
  editing: 'Editing',
  approving_edit: 'Approving edit',
  ready_for_assessment: 'Ready for assessment',
  assessing: 'Assessing',
  approving_assessment: 'Approving assessment',
  assessed: 'Assessed',
};

/** Essential Eight maturity levels as the maturity model writes them. */
export const MATURITY_LABELS: Record<'ML0' | 'ML1' | 'ML2' | 'ML3', string> = {
  ML0: 'Maturity Level Zero',
  ML1: 'Maturity Level One',
  ML2: 'Maturity Level Two',
  ML3: 'Maturity Level Three',
};

/** What the assessment shows of a maturity level, and of a target. */
export const LEVEL_STATUS_LABELS: Record<'achieved' | 'not_achieved' | 'not_determined', string> = {
  achieved: 'Achieved',
  not_achieved: 'Not achieved',
  not_determined: 'Not determined',
};

export const TARGET_STATUS_LABELS: Record<'met' | 'not_met' | 'not_determined', string> = { met: 'Met', not_met: 'Not met', not_determined: 'Not determined' };

/** The Process Guide's evidence grades. */
export const GRADE_LABELS: Record<'excellent' | 'good' | 'fair' | 'poor', string> = { excellent: 'Excellent', good: 'Good', fair: 'Fair', poor: 'Poor' };

export const labelOf = (labels: Readonly<Record<string, string>>, code: string | null): string => (code === null ? '' : (labels[code] ?? code));

/** What a control is about: its topic in the catalogue (the ISM's title only repeats the id). */
export const topicOf = (c: Pick<DocumentControl, 'path' | 'title'>): string => c.path[2] || c.path[1] || c.title;
