import { declarationsOf } from '../kernel/operation.js';

/** Declares an operation of this group: its function serves it, and the kernel derives its mode and generic statuses. */
export const operation = declarationsOf('organisations');
