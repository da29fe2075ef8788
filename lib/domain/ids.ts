import { isValid as isUlid } from 'ulid';
import { singleLine } from './validation.js';

/** Resource identifiers are ULIDs (seed, Conventions), in paths and wherever a body names a resource. */
export const Ulid = singleLine()
  .length(26)
  .refine((s) => isUlid(s), { message: 'must be a ULID' })
  .meta({ description: 'ULID', examples: ['01JD3Q5Z8X6Y7W2V9T4S3R2P1N'] });
