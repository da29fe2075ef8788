import type { Writable } from 'node:stream';
import type { DocumentModel } from '../domain/document-model.js';

/**
 * One template of the document catalogue. `render` writes the whole document to `out` and ends
 * it; it resolves once it has ended it, so that the caller can wait for its sink (an S3 multipart
 * upload) to finish. When it fails it rejects and may leave `out` open: the caller owns `out` and
 * destroys it (stream-upload aborts the upload). Renderers read the model only: no table, bucket or network.
 */
export interface Renderer {
  format: 'pdf' | 'xlsx' | 'json';
  mediaType: string;
  extension: string;
  render(model: DocumentModel, out: Writable): Promise<void>;
}
