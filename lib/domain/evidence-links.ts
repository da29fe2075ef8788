import * as z from 'zod';
import type { FieldError } from '../errors.js';
import {
  EvidenceView,
  fileOf,
  METADATA_KEYS,
  MetadataFields,
  OptionalMetadata,
  type EvidenceFile,
  type EvidenceMetadata,
  type EvidenceSource,
  type StoredEvidence,
  sourceIdentity,
} from './evidence.js';
import { Ulid } from './ids.js';
import { libraryDefinitionById, LIBRARY_KINDS, type LibraryDefinition } from './library-definitions.js';
import { definitionById, REGISTER_KINDS, REGISTER_OWNERS, type RegisterDefinition } from './registers.js';
import { MAX_REF_LENGTH, MAX_REPOSITORY_PATH, refProblem, repositoryPathProblem, RepositoryConnectionOption } from './repositories.js';
import { once, singleLine } from './validation.js';

/**
 * Evidence links (seed: a link to an uploaded file, a register, a library document or a repository
 * file): the request body, the identity that makes a repeated link the same link, the source
 * permission each kind needs, and the link options a control offers.
 */

/** A refusal of one rule, named by its own code and pointer like the text rule's. */
const ruled = (problemOf: (value: string) => string | undefined, code: string) => (value: string, ctx: z.core.$RefinementCtx<string>) => {
  const problem = problemOf(value);
  if (problem) ctx.addIssue({ code: 'custom', message: problem, params: { code } });
};

const RepositoryPath = once(() =>
  singleLine()
    .check(z.superRefine(ruled(repositoryPathProblem, 'invalid_repository_path')))
    .meta({
      minLength: 1,
      maxLength: MAX_REPOSITORY_PATH,
      description: 'A file of the repository, relative to its root, / between directories: no leading /, no . or .. or empty segments, no .git, no \\.',
    }),
);

const RepositoryRef = once(() =>
  singleLine()
    .check(z.superRefine(ruled(refProblem, 'invalid_ref')))
    .meta({
      minLength: 1,
      maxLength: MAX_REF_LENGTH,
      description: 'A branch, tag or commit id, as git check-ref-format accepts it (one-level names allowed).',
    }),
);

const linkMetadata = once(() => ({
  ...OptionalMetadata(),
  title: MetadataFields().title.optional().meta({
    description: 'Defaults to the file name, the register name, the library title or the repository path.',
  }),
}));

export const CreateEvidenceLink = once(() =>
  z
    .discriminatedUnion('kind', [
      z.strictObject({
        kind: z.literal('file_link'),
        source_control_id: Ulid.meta({ description: 'Another control of this project.' }),
        source_evidence_id: Ulid.meta({ description: 'An uploaded file of that control whose status is ready (not a link: link the original upload).' }),
        ...linkMetadata(),
      }),
      z.strictObject({
        kind: z.literal('register_link'),
        definition_id: Ulid.meta({ description: 'A register definition the project sees.' }),
        ...linkMetadata(),
      }),
      z.strictObject({ kind: z.literal('library_link'), definition_id: Ulid.meta({ description: 'A library definition.' }), ...linkMetadata() }),
      z.strictObject({
        kind: z.literal('repository_link'),
        connection_id: Ulid.meta({ description: "A repository connection of the project's organisation." }),
        path: RepositoryPath(),
        ref: RepositoryRef(),
        ...linkMetadata(),
      }),
    ])
    .meta({
      id: 'CreateEvidenceLink',
      description:
        'A link, by kind: file_link (source_control_id, source_evidence_id), register_link or library_link (definition_id), repository_link (connection_id, path, ref); the metadata fields are optional.',
    }),
);
export type CreateEvidenceLink = z.output<ReturnType<typeof CreateEvidenceLink>>;

export function sourceOf(body: CreateEvidenceLink): EvidenceSource {
  switch (body.kind) {
    case 'file_link':
      return { kind: 'file', control_id: body.source_control_id, evidence_id: body.source_evidence_id };
    case 'register_link':
      return { kind: 'register', definition_id: body.definition_id };
    case 'library_link':
      return { kind: 'library', definition_id: body.definition_id };
    case 'repository_link':
      return { kind: 'repository', connection_id: body.connection_id, path: body.path, ref: body.ref };
  }
}

/** The metadata a link request gives (the title only when given: it defaults to the source's name). */
export function linkMetadataOf(body: CreateEvidenceLink): Partial<EvidenceMetadata> {
  return Object.fromEntries(METADATA_KEYS.filter((k) => body[k] !== undefined).map((k) => [k, body[k]]));
}

/** What makes two links of a control the same link: the source alone, never the metadata. */
export const sameSource = (a: EvidenceSource | null, b: EvidenceSource) => a !== null && sourceIdentity(a) === sourceIdentity(b);

/** Seed, Evidence rule 4: register sources need view-registers; library and file sources view-controls, which the operation needs anyway. */
export function unreadableSource(source: EvidenceSource, permissions: ReadonlySet<string>): FieldError | undefined {
  const needed = source.kind === 'register' ? 'view-registers' : 'view-controls';
  if (permissions.has(needed)) return undefined;
  return { pointer: '/definition_id', code: 'unreadable_reference', detail: `names a source this credential cannot read (it needs ${needed})` };
}

export const invalidReference = (pointer: string, detail: string): FieldError => ({ pointer, code: 'invalid_reference', detail });

/** The name of the register or library definition a link names, from the finite catalogues; undefined when there is none. */
export function catalogueTitle(source: Extract<EvidenceSource, { kind: 'register' | 'library' }>): string | undefined {
  return source.kind === 'register' ? definitionById(source.definition_id)?.name : libraryDefinitionById(source.definition_id)?.title;
}

/** A title stays within the metadata limit: a long source name keeps its end, which names the file. */
export function titleFrom(text: string): string {
  const trimmed = text.trim();
  return trimmed.length <= 200 ? trimmed : `…${trimmed.slice(-199)}`;
}

/** The file an evidence item offers a file link, with the title it lends it, or why it offers none. */
export function linkableFile(source: StoredEvidence | undefined): { file: EvidenceFile; title: string } | { problem: FieldError } {
  if (!source) return { problem: invalidReference('/source_evidence_id', 'is not an evidence item of that control in this project') };
  if (source.kind !== 'upload') return { problem: invalidReference('/source_evidence_id', 'is not an uploaded file; link the file it points at instead') };
  const file = fileOf(source);
  if (source.file_status !== 'ready' || !file) {
    return {
      problem: { pointer: '/source_evidence_id', code: 'source_not_ready', detail: 'is a file still being scanned or refused; only ready files can be linked' },
    };
  }
  return { file, title: titleFrom(file.file_name || source.title) };
}

export const EvidenceLinkResult = once(() =>
  EvidenceView()
    .extend({
      already_linked: z.boolean().meta({ description: 'true (with status 200) when this control already had an identical link: that item, nothing created.' }),
    })
    .meta({ id: 'EvidenceLinkResult' }),
);

const FileLinkOption = once(() =>
  z
    .object({
      control_id: z.string(),
      evidence_id: z.string(),
      title: z.string(),
      file_name: z.string(),
      size: z.number().int(),
      content_type: z.string().nullable(),
      linked: z.boolean().meta({ description: 'Whether this control already links it.' }),
    })
    .meta({ id: 'FileLinkOption' }),
);

const RegisterLinkOption = once(() =>
  z
    .object({ definition_id: z.string(), key: z.string(), name: z.string(), owner: z.enum(REGISTER_OWNERS), kind: z.enum(REGISTER_KINDS), linked: z.boolean() })
    .meta({ id: 'RegisterLinkOption' }),
);

const LibraryLinkOption = once(() =>
  z
    .object({ definition_id: z.string(), key: z.string(), title: z.string(), kind: z.enum(LIBRARY_KINDS), linked: z.boolean() })
    .meta({ id: 'LibraryLinkOption' }),
);

export const EvidenceLinkOptions = once(() =>
  z
    .object({
      files: z.object({
        items: z.array(FileLinkOption()),
        page_number: z.number().int(),
        page_size: z.number().int(),
        has_more: z.boolean().meta({ description: 'Whether page_number + 1 holds more files.' }),
      }),
      registers: z.array(RegisterLinkOption()).optional().meta({ description: 'Only with view-registers; otherwise absent and named in redacted_fields.' }),
      library: z.array(LibraryLinkOption()),
      repositories: z.array(RepositoryConnectionOption()),
      redacted_fields: z.array(z.string()),
    })
    .meta({ id: 'EvidenceLinkOptions' }),
);
export type EvidenceLinkOptions = z.output<ReturnType<typeof EvidenceLinkOptions>>;
export type FileLinkOption = z.output<ReturnType<typeof FileLinkOption>>;

/** A ready upload of another control as a file option. */
export const fileOption = (e: StoredEvidence & Required<Pick<StoredEvidence, 'file_name' | 'size'>>, linked: boolean): FileLinkOption => ({
  control_id: e.control_id,
  evidence_id: e.id,
  title: e.title,
  file_name: e.file_name,
  size: e.size,
  content_type: e.detected_type ?? null,
  linked,
});

export const registerOption = (d: RegisterDefinition, linked: boolean) => ({
  definition_id: d.id,
  key: d.key,
  name: d.name,
  owner: d.owner,
  kind: d.kind,
  linked,
});
export const libraryOption = (d: LibraryDefinition, linked: boolean) => ({ definition_id: d.id, key: d.key, title: d.title, kind: d.kind, linked });
