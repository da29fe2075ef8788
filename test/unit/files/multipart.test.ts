import { describe, expect, it } from 'vitest';
import { MultipartError, parseMultipart } from '../../../lib/files/multipart.js';

const TYPE = 'multipart/form-data; boundary=XyZ';
const limits = { fileBytes: 1024, files: 1 };

describe('parseMultipart', () => {
  it('reads fields and one file', async () => {
    const body = Buffer.from(
      '--XyZ\r\nContent-Disposition: form-data; name="a"\r\n\r\n1\r\n--XyZ\r\nContent-Disposition: form-data; name="file"; filename="f.png"\r\nContent-Type: image/png\r\n\r\nabc\r\n--XyZ--\r\n',
    );
    const out = await parseMultipart(body, TYPE, limits);
    expect(out.fields).toEqual({ a: '1' });
    expect(out.files[0]).toMatchObject({ field: 'file', fileName: 'f.png', declaredType: 'image/png' });
    expect(out.files[0]!.bytes.toString()).toBe('abc');
  });

  it('refuses a file part cut off before its boundary, without crashing the process', async () => {
    const body = Buffer.from('--XyZ\r\nContent-Disposition: form-data; name="file"; filename="a.png"\r\n\r\nabc');
    await expect(parseMultipart(body, TYPE, limits)).rejects.toBeInstanceOf(MultipartError);
  });

  it('refuses a body without a boundary', async () => {
    await expect(parseMultipart(Buffer.from('x'), 'multipart/form-data', limits)).rejects.toBeInstanceOf(MultipartError);
  });

  it('reports a file above the limit', async () => {
    const body = Buffer.concat([
      Buffer.from('--XyZ\r\nContent-Disposition: form-data; name="file"; filename="a.png"\r\n\r\n'),
      Buffer.alloc(2000, 1),
      Buffer.from('\r\n--XyZ--\r\n'),
    ]);
    await expect(parseMultipart(body, TYPE, limits)).rejects.toThrow('file_too_large');
  });
});
