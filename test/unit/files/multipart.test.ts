import { describe, expect, it } from 'vitest';
import { MultipartError, parseMultipart } from '../../../lib/files/multipart.js';

const TYPE = 'multipart/form-data; boundary=XyZ';
const limits = { fileBytes: 1024, files: 1 };
const field = (name: string, value: string) => `--XyZ\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`;
const file = (name: string, fileName: string, content: string) =>
  `--XyZ\r\nContent-Disposition: form-data; name="${name}"; filename="${fileName}"\r\nContent-Type: image/png\r\n\r\n${content}\r\n`;
const form = (...parts: string[]) => Buffer.from(`${parts.join('')}--XyZ--\r\n`);

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

  it('reads a file name as UTF-8 and the declared type without its parameters', async () => {
    const body = form('--XyZ\r\nContent-Disposition: form-data; name="file"; filename="été.png"\r\nContent-Type: Image/PNG; x=1\r\n\r\nabc\r\n');
    const [part] = (await parseMultipart(body, TYPE, limits)).files;
    expect(part).toMatchObject({ fileName: 'été.png', declaredType: 'image/png' });
  });

  it('refuses a field given twice', async () => {
    await expect(parseMultipart(form(field('a', '1'), field('a', '2')), TYPE, limits)).rejects.toThrow('field a is given more than once');
  });

  it('refuses a second file', async () => {
    await expect(parseMultipart(form(file('file', 'a.png', 'a'), file('other', 'b.png', 'b')), TYPE, limits)).rejects.toThrow('too many files');
  });

  it('refuses a field above 64 KiB instead of cutting it short', async () => {
    await expect(parseMultipart(form(field('note', 'x'.repeat(64 * 1024 + 1))), TYPE, limits)).rejects.toThrow('field note is longer than 64 KiB');
  });

  it('refuses more than 20 fields', async () => {
    const fields = Array.from({ length: 21 }, (_, i) => field(`f${i}`, 'x'));
    await expect(parseMultipart(form(...fields), TYPE, limits)).rejects.toThrow('too many fields');
  });

  it('refuses a body the platform reader cannot read, such as one without its closing boundary', async () => {
    await expect(parseMultipart(Buffer.from(field('a', '1')), TYPE, limits)).rejects.toThrow('the multipart body is malformed');
  });
});
