/**
 * The document catalogue: the documents a project can generate, by stable key. Register rows name
 * them in document_ref columns; the document operations build their outputs on the same keys.
 */
export const DOCUMENT_KEYS = ['ssp', 'soa', 'controls-json', 'e8-assessment', 'security-assessment-report', 'oscal-ssp', 'oscal-assessment-results'] as const;
export type DocumentKey = (typeof DOCUMENT_KEYS)[number];

const KNOWN: ReadonlySet<string> = new Set(DOCUMENT_KEYS);

export const isDocumentKey = (key: string): key is DocumentKey => KNOWN.has(key);
