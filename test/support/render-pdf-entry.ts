import { createWriteStream, readFileSync } from 'node:fs';
import type { DocumentModel } from '../../lib/domain/document-model.js';
import { PDF_RENDERERS } from '../../lib/render/pdf/index.js';

/**
 * An entry bundled like a function (test/infra/pdf-bundle.test.ts): it renders the model a JSON
 * file holds (images as base64) with the renderer of its document key, to a file.
 */
export async function handler(event: { model: string; out: string }): Promise<void> {
  const model = JSON.parse(readFileSync(event.model, 'utf8'), (key, value) =>
    key === 'bytes' && typeof value === 'string' ? Buffer.from(value, 'base64') : value,
  ) as DocumentModel;
  await PDF_RENDERERS[model.document.key as keyof typeof PDF_RENDERERS].render(model, createWriteStream(event.out));
}
