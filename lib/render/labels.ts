import type { Origin } from '../domain/applicability.js';
import type { ALL_STATUSES, OUTCOMES } from '../domain/controls.js';

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

/** The default workflow's states; a configured workflow's own states show as their ids. */
export const WORKFLOW_LABELS: Record<string, string> = {
  editing: 'Editing',
  approving_edit: 'Approving edit',
  ready_for_assessment: 'Ready for assessment',
  assessing: 'Assessing',
  approving_assessment: 'Approving assessment',
  assessed: 'Assessed',
};

export const labelOf = (labels: Readonly<Record<string, string>>, code: string | null): string => (code === null ? '' : (labels[code] ?? code));
