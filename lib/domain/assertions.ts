import * as z from 'zod';
import { REVIEW_REASONS, type ReviewReason } from './imports/exactness.js';
import { IMPLEMENTATION_STATUSES, type ImportedRow, RESPONSIBILITIES } from './imports/rows.js';
import { base32, digestBase32, ULID_CHARACTERS } from './ids.js';
import { once, singleLine } from './validation.js';

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
 * The part of an assertion's id that names its release: the release's timestamp, then a digest of
 * the release's id (40 bits: two releases of a provider would have to be created in the same
 * millisecond and then share it), so that a release's assertions are one key range.
 */
export const releaseAssertionIds = (releaseId: string) => `${releaseId.slice(0, 10)}${digestBase32(releaseId, 8)}`;

/**
 * An assertion's ULID, derived rather than drawn, like a control's: its release's part, the ISM
 * control's number (ism-1691) in four base-32 characters, then a digest of release and control. One
 * release and control give one id, so an import that writes a control again, a redelivery and the
 * migration of older assertions all land on the same item, and a release's assertions sort by
 * control. The number alone keeps the controls of a release apart; the digest keeps apart any id
 * that is not `ism-<number>` (test fixtures' made-up controls).
 */
export function assertionId(releaseId: string, controlId: string): string {
  const number = Number(/^ism-(\d{1,5})$/.exec(controlId)?.[1] ?? 0);
  return `${releaseAssertionIds(releaseId)}${base32(number, 4)}${digestBase32(`${releaseId}\n${controlId}`, 4)}`;
}

/** Ids before assertions had ULIDs (`<release id>-ism-1691`): accepted in paths so that they answer 404, not 422. */
const LEGACY_ASSERTION_ID = `${ULID_CHARACTERS}-ism-\\d{4,5}`;

export const AssertionId = once(() =>
  singleLine()
    .regex(new RegExp(`^(?:${ULID_CHARACTERS}|${LEGACY_ASSERTION_ID})$`), 'must be a ULID')
    .meta({ description: 'ULID (an id from before assertions had ULIDs, <release id>-ism-1691, answers 404).', examples: ['01JD3Q5Z8X6Y7W2V9T4S3R2P1N'] }),
);

export const Assertion = once(() =>
  z
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
    .meta({ id: 'ProviderAssertion' }),
);
export type Assertion = z.infer<ReturnType<typeof Assertion>>;

export const assertionView = ({ version: _v, ...a }: StoredAssertion): Assertion => a;

export const ReviewAssertion = once(() => z.strictObject({}).meta({ id: 'ReviewAssertion', description: 'An empty JSON object.' }));

export const isConfirmed = (a: Pick<StoredAssertion, 'status'> | undefined) => a?.status === 'confirmed';
