import { spawnSync } from 'node:child_process';

/** The poppler-utils programs the PDF tests read generated documents with (test/support/pdf.ts). */
export const POPPLER_TOOLS = ['pdfinfo', 'pdftotext', 'pdffonts', 'pdfimages', 'pdftoppm'] as const;

export function missingPoppler(missing: readonly string[]): string {
  return `npm test needs poppler's ${POPPLER_TOOLS.join(', ')} on the PATH, and ${missing.join(', ')} could not be run (Debian: apt-get install poppler-utils).`;
}

/** The one-line explanation of the poppler tools that cannot be run, if any. */
export function popplerProblem(): string | undefined {
  const missing = POPPLER_TOOLS.filter((tool) => spawnSync(tool, ['-v']).error);
  return missing.length > 0 ? missingPoppler(missing) : undefined;
}
