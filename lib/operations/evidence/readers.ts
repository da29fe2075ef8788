import { isUtf8 } from 'node:buffer';
import { evidenceLinks, fileOf, MAX_CONTENT_BYTES, type EvidenceKind, type StoredEvidence } from '../../domain/evidence.js';
import { contentDisposition } from '../../domain/evidence-files.js';
import { libraryDefinitionById } from '../../domain/library-definitions.js';
import type { Permission } from '../../domain/permissions.js';
import { rowView } from '../../domain/register-rows.js';
import { definitionById } from '../../domain/registers.js';
import { PROFILES, TEXT_TYPES } from '../../files/profiles.js';
import { streamObject } from '../../files/storage.js';
import { conflict, notFound } from '../../errors.js';
import { controlSummaryRows } from '../../store/control-summary.js';
import { keys } from '../../store/keys.js';
import { rereadWorkingCopy } from '../../store/library.js';
import { getOne } from '../../store/read.js';
import { allRows } from '../../store/registers.js';
import { getRepositoryConnection } from '../../store/repositories.js';
import { RepositoryFileTooLargeError } from '../../repositories/errors.js';
import { resolveFile } from '../../repositories/resolve.js';
import type { EvidenceContext } from './access.js';
import type { FileAnswer, OperationContext } from '../kernel/operation.js';
import { placeOf } from '../registers/project-access.js';

/**
 * How each kind of evidence is read, live, by the content and download endpoints: one reader per
 * kind and endpoint. A kind without a reader here has none of that endpoint (409).
 */
export type EvidenceReader = (ctx: OperationContext, found: EvidenceContext & { item: StoredEvidence }) => Promise<FileAnswer>;

/** Seed, Evidence rule 4: what a source needs beyond view-controls, which every evidence read needs (library sources need no more). */
export const SOURCE_PERMISSION: Partial<Record<EvidenceKind, Permission>> = { register_link: 'view-registers' };

/** Text was accepted as valid UTF-8 (inspect.ts); saying so keeps browsers from guessing another charset. */
const withCharset = (type: string) => ((TEXT_TYPES as readonly string[]).includes(type) && type.startsWith('text/') ? `${type}; charset=utf-8` : type);

/** The item's file (an upload's, or the file a link copied when it was made), streamed from storage as it is read. */
const fileReader =
  (disposition: 'inline' | 'attachment'): EvidenceReader =>
  async (_ctx, { item }) => {
    // Reached for a ready file only (readRefusal), which its scan released with its detected type.
    const file = fileOf(item);
    // A condemned file's bytes are gone even where an item still names them.
    const object = file?.detected_type ? await streamObject(file.s3_key) : undefined;
    if (!file?.detected_type || !object) throw notFound('The file is not available.');
    return { contentType: withCharset(file.detected_type), disposition: contentDisposition(disposition, file.file_name), ...object };
  };

/** A register's rows as the project sees them, redacted as its row reads are, as one JSON document. */
const registerContent: EvidenceReader = async (ctx, { project, item }) => {
  const definition = item.source?.kind === 'register' ? definitionById(item.source.definition_id) : undefined;
  if (!definition) throw notFound('The register is not available.');
  const place = placeOf(ctx, project, definition);
  const rows =
    definition.kind === 'generated'
      ? controlSummaryRows(project, await getOne(keys.projectSummary(project.id)))
      : (await allRows(place.scope, definition.id)).map((r) => r.row);
  const document = {
    definition: { id: definition.id, key: definition.key, name: definition.name },
    rows: rows.map((r) => rowView(definition, r, place.authority)),
  };
  const bytes = Buffer.from(JSON.stringify(document), 'utf8');
  if (bytes.length > MAX_CONTENT_BYTES) {
    throw conflict('evidence_content_too_large', `The register's rows exceed ${MAX_CONTENT_BYTES} bytes; read them through the register's row pages.`, {
      links: {},
    });
  }
  return { contentType: 'application/json', disposition: contentDisposition('inline', `${definition.key}.json`), bytes };
};

/** The working copy's Markdown as it is now (empty before its first edit, as the library reads it). */
const libraryContent: EvidenceReader = async (_ctx, { project, item }) => {
  const definition = item.source?.kind === 'library' ? libraryDefinitionById(item.source.definition_id) : undefined;
  if (!definition) throw notFound('The library document is not available.');
  const copy = await rereadWorkingCopy(project.id, definition.id);
  return {
    contentType: 'text/markdown; charset=utf-8',
    disposition: contentDisposition('inline', `${definition.key}.md`),
    bytes: Buffer.from(copy?.content_markdown ?? '', 'utf8'),
  };
};

/** Repository downloads may be larger than what the content endpoint shows inline, as evidence uploads may. */
const REPOSITORY_DOWNLOAD_BYTES = PROFILES.evidence.maxBytes;

/**
 * A repository file at the commit its ref names now (seed: the answer identifies the resolved
 * commit and the SHA-256). Its bytes are served as text when they are UTF-8 and as opaque bytes
 * otherwise, never with a type a browser would run, whatever the file's name says.
 */
const repositoryReader =
  (disposition: 'inline' | 'attachment'): EvidenceReader =>
  async (_ctx, { project, item }) => {
    if (item.source?.kind !== 'repository') throw notFound();
    const { connection_id, path, ref } = item.source;
    const connection = await getRepositoryConnection(project.organisation_id, connection_id);
    if (!connection) throw notFound('The repository connection is not available.');
    const limit = disposition === 'inline' ? MAX_CONTENT_BYTES : REPOSITORY_DOWNLOAD_BYTES;
    let file: Awaited<ReturnType<typeof resolveFile>>;
    try {
      file = await resolveFile(connection, path, ref, { maxBytes: limit });
    } catch (error) {
      if (error instanceof RepositoryFileTooLargeError && disposition === 'inline') {
        throw conflict('evidence_content_too_large', `The file exceeds ${limit} bytes; download it (links.download).`, { links: evidenceLinks(item).links });
      }
      throw error;
    }
    const name = path.slice(path.lastIndexOf('/') + 1);
    return {
      contentType: isUtf8(file.bytes) ? 'text/plain; charset=utf-8' : 'application/octet-stream',
      disposition: contentDisposition(disposition, name),
      headers: { 'X-Repository-Commit': file.commit, 'Repr-Digest': `sha-256=:${Buffer.from(file.sha256, 'hex').toString('base64')}:` },
      bytes: file.bytes,
    };
  };

export const READERS: Record<'content' | 'download', Partial<Record<EvidenceKind, EvidenceReader>>> = {
  content: {
    upload: fileReader('inline'),
    file_link: fileReader('inline'),
    register_link: registerContent,
    library_link: libraryContent,
    repository_link: repositoryReader('inline'),
  },
  download: { upload: fileReader('attachment'), file_link: fileReader('attachment'), repository_link: repositoryReader('attachment') },
};
