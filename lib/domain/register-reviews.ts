import * as z from 'zod';
import { multiLine, once } from './validation.js';

/**
 * A register review: the project's assertion that someone looked at a register as it saw it. It
 * never snapshots, approves or changes rows (seed, note 2); the server sets the actor and time.
 */
export const NOTES_MAX = 5000;

export const CreateRegisterReview = once(() =>
  z
    .strictObject({
      notes: multiLine()
        .max(NOTES_MAX, `must be at most ${NOTES_MAX} characters`)
        .nullable()
        .optional()
        .meta({ description: 'What the reviewer wants on record; omitted equals null.' }),
    })
    // Omitted and null are the same review, so they share a receipt's payload too.
    .transform((body) => ({ notes: body.notes ?? null }))
    .meta({ id: 'CreateRegisterReview', description: 'Optional: an empty object, or no body at all, records a review without notes.' }),
);

export const RegisterReview = once(() =>
  z
    .object({
      id: z.string(),
      definition_id: z.string(),
      notes: z.string().nullable(),
      reviewed_by: z.string().meta({ description: 'The user who recorded the review.' }),
      reviewed_at: z.string(),
    })
    .meta({ id: 'RegisterReview' }),
);
export type RegisterReview = z.infer<ReturnType<typeof RegisterReview>>;

export interface StoredRegisterReview extends RegisterReview {
  project_id: string;
}

export const reviewView = (r: StoredRegisterReview): RegisterReview => ({
  id: r.id,
  definition_id: r.definition_id,
  notes: r.notes,
  reviewed_by: r.reviewed_by,
  reviewed_at: r.reviewed_at,
});
