/** The security classifications of the ISM, with the names setup forms show. */
export const CLASSIFICATION_CODES = ['NC', 'OS', 'P', 'S', 'TS'] as const;
export type Classification = (typeof CLASSIFICATION_CODES)[number];

const NAMES: Record<Classification, string> = {
  NC: 'Non-classified',
  OS: 'OFFICIAL: Sensitive',
  P: 'PROTECTED',
  S: 'SECRET',
  TS: 'TOP SECRET',
};

export const CLASSIFICATIONS = CLASSIFICATION_CODES.map((code) => ({ code, name: NAMES[code] }));
