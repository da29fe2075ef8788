import * as z from 'zod';
import { REVIEW_REASONS, type ReviewReason } from './imports/exactness.js';
import { IMPLEMENTATION_STATUSES, type ImportedRow, RESPONSIBILITIES } from './imports/rows.js';
import { singleLine } from './validation.js';

/**
 * A release's assertion about one ISM control (issue 14): written by artefact imports, reviewed
 * one by one or in bulk, frozen with its release. Only a confirmed assertion speaks for its
 * release: options find releases by their confirmed assertions.
 */
export const ASSERTION_STATUSES = ['pending', 'confirmed', 'rejected'] as const;
export type AssertionStatus = (typeof ASSERTION_STATUSES)[number];

/** What an import read into an assertion, and how it judged it against the release's ISM version. */
export interface AssertionContent extends Omit<ImportedRow, 'control_id' | 'ism_version'> {
  /** The artefact whose import wrote the assertion last, and the row of it. */
  artefact_id: string;
  /** Whether confirm-exact may confirm it; otherwise why a person has to. */
  exact: boolean;
  review_reason: ReviewReason | null;
  review_detail: string | null;
  imported_at: string;
}

export interface StoredAssertion extends AssertionContent {
  id: string;
  provider_id: string;
  release_id: string;
  /** The ISM catalogue's identifier of the control, lower case (ism-1691). */
  control_id: string;
  status: AssertionStatus;
  version: number;
  reviewed_by: string | null;
  reviewed_at: string | null;
}

/**
 * An assertion's id names its release and control (`<release>-ism-1691`): one assertion per
 * release and control, so the id finds its item without an index.
 */
export const assertionId = (releaseId: string, controlId: string) => `${releaseId}-${controlId}`;

export const AssertionId = singleLine()
  .regex(/^[0-9A-HJKMNP-TV-Z]{26}-ism-\d{4,5}$/, 'must be an assertion id (<release>-ism-<number>)')
  .meta({ description: 'The release and the ISM control: <release id>-ism-1691.' });

export const parseAssertionId = (id: string) => ({ release_id: id.slice(0, 26), control_id: id.slice(27) });

export const Assertion = z
  .object({
    id: z.string(),
    provider_id: z.string(),
    release_id: z.string(),
    control_id: z.string(),
    status: z.enum(ASSERTION_STATUSES),
    responsibility: z.enum(RESPONSIBILITIES),
    implementation_status: z.enum(IMPLEMENTATION_STATUSES).nullable(),
    implementation_statement: z.string().nullable(),
    consumer_guidance: z.string().nullable(),
    assessor_finding: z.string().nullable(),
    control_text: z.string().nullable(),
    exact: z.boolean(),
    review_reason: z.enum(REVIEW_REASONS).nullable(),
    review_detail: z.string().nullable(),
    artefact_id: z.string(),
    row: z.number().int(),
    imported_at: z.string(),
    reviewed_by: z.string().nullable(),
    reviewed_at: z.string().nullable(),
  })
  .meta({ id: 'ProviderAssertion' });
export type Assertion = z.infer<typeof Assertion>;

export const assertionView = ({ version: _v, ...a }: StoredAssertion): Assertion => a;

export const ReviewAssertion = z.strictObject({}).meta({ id: 'ReviewAssertion', description: 'An empty JSON object.' });

export const isConfirmed = (a: Pick<StoredAssertion, 'status'> | undefined) => a?.status === 'confirmed';
