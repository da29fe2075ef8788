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
 * What a form may hold beside its files: no upload form has more than a few short fields. With
 * fields and files each refused past its limit, a form has at most 20 + files parts: no part limit.
 */
const FORM_LIMITS = { fields: 20, fieldBytes: 64 * 1024 };

const BOUNDARY = /^\s*multipart\/form-data\s*;(?:.*;)?\s*boundary\s*=/i;

/** The platform's form reader (fetch's `formData()`), which reads the whole buffered body at once; any body it cannot read is malformed. */
async function readForm(body: Buffer, contentType: string): Promise<FormData> {
  if (!BOUNDARY.test(contentType)) throw new MultipartError('the multipart boundary is missing');
  try {
    return await new Response(body, { headers: { 'content-type': contentType } }).formData();
  } catch {
    throw new MultipartError('the multipart body is malformed');
  }
}

/**
 * Parses a buffered multipart/form-data body (RFC 7578). Repeated fields, more files or fields
 * than the limits allow, and a field longer than its limit are refused, never cut short.
 */
export async function parseMultipart(body: Buffer, contentType: string, limits: { fileBytes: number; files: number }): Promise<Multipart> {
  const form = await readForm(body, contentType);
  // No prototype: a field named __proto__ or toString is a field like any other, refused or repeated as such.
  const fields: Record<string, string> = Object.create(null);
  const files: UploadedPart[] = [];
  for (const [name, value] of form) {
    if (typeof value === 'string') {
      if (name in fields) throw new MultipartError(`field ${name} is given more than once`);
      if (Object.keys(fields).length === FORM_LIMITS.fields) throw new MultipartError('too many fields');
      if (Buffer.byteLength(value) > FORM_LIMITS.fieldBytes) throw new MultipartError(`field ${name} is longer than ${FORM_LIMITS.fieldBytes / 1024} KiB`);
      fields[name] = value;
      continue;
    }
    if (files.length === limits.files) throw new MultipartError('too many files');
    if (value.size > limits.fileBytes) throw new MultipartError('file_too_large');
    // The media type without its parameters, lower case, as the file checks compare it.
    files.push({ field: name, fileName: value.name, declaredType: value.type.split(';')[0]!.trim(), bytes: Buffer.from(await value.arrayBuffer()) });
  }
  return { fields, files };
}
