/**
 * A release's assertion about one ISM control (issue 14): written by artefact imports, reviewed
 * one by one or in bulk, frozen with its release. Only a confirmed assertion speaks for its
 * release: options find releases by their confirmed assertions.
 */
export const ASSERTION_STATUSES = ['pending', 'confirmed', 'rejected'] as const;
export type AssertionStatus = (typeof ASSERTION_STATUSES)[number];

export interface StoredAssertion {
  id: string;
  provider_id: string;
  release_id: string;
  /** The ISM catalogue's identifier of the control, lower case (ism-1691). */
  control_id: string;
  status: AssertionStatus;
  version: number;
}

export const isConfirmed = (a: Pick<StoredAssertion, 'status'> | undefined) => a?.status === 'confirmed';
