import { evidenceItemOperations } from '../evidence.js';
import type { AnyOperation } from '../operation.js';

/** What the evidence function serves: a control's evidence items, their files and links. */
export const operations = [...evidenceItemOperations] as unknown as readonly AnyOperation[];
