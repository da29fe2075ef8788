import type busboy from 'busboy';

export interface UploadedPart {
  field: string;
  fileName: string;
  declaredType: string;
  bytes: Buffer;
}

export interface Multipart {
  fields: Record<string, string>;
  files: UploadedPart[];
}

export class MultipartError extends Error {
  override readonly name = 'MultipartError';
}

/**
 * Parses a buffered multipart/form-data body (RFC 7578). Repeated fields or files are refused. The
 * parser is imported at the first form, so that a function's operations without one never load it.
 */
export async function parseMultipart(body: Buffer, contentType: string, limits: { fileBytes: number; files: number }): Promise<Multipart> {
  const { default: parse } = await import('busboy');
  return new Promise((resolve, reject) => {
    let parser: busboy.Busboy;
    try {
      parser = parse({
        headers: { 'content-type': contentType },
        // Browsers and fetch send file names as raw UTF-8; busboy would read them as Latin-1.
        defParamCharset: 'utf8',
        limits: { fileSize: limits.fileBytes, files: limits.files, fields: 20, fieldSize: 64 * 1024, parts: 40 },
      });
    } catch {
      reject(new MultipartError('the multipart boundary is missing'));
      return;
    }
    // No prototype: a field named __proto__ or toString is a field like any other, refused or repeated as such.
    const fields: Record<string, string> = Object.create(null);
    const files: UploadedPart[] = [];
    let failure: string | undefined;
    parser.on('field', (name, value) => {
      if (name in fields) failure ??= `field ${name} is given more than once`;
      fields[name] = value;
    });
    parser.on('file', (field, stream, info) => {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('limit', () => (failure ??= 'file_too_large'));
      // A part cut off before its boundary errors on the file stream, not on the parser.
      stream.on('error', () => (failure ??= 'the multipart body is malformed'));
      stream.on('close', () => files.push({ field, fileName: info.filename ?? '', declaredType: info.mimeType, bytes: Buffer.concat(chunks) }));
    });
    parser.on('filesLimit', () => (failure ??= 'too many files'));
    parser.on('error', () => reject(new MultipartError('the multipart body is malformed')));
    parser.on('close', () => (failure ? reject(new MultipartError(failure)) : resolve({ fields, files })));
    parser.end(body);
  });
}
