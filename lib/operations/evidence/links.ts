import { evidenceUrl, evidenceView, type EvidenceSource, type StoredEvidence } from '../../domain/evidence.js';
import {
  catalogueTitle,
  CreateEvidenceLink,
  EvidenceLinkOptions,
  EvidenceLinkResult,
  fileOption,
  libraryOption,
  registerOption,
  sameSource,
  invalidReference,
  linkableFile,
  linkMetadataOf,
  sourceOf,
  titleFrom,
  unreadableSource,
} from '../../domain/evidence-links.js';
import { LIBRARY_DEFINITIONS } from '../../domain/library-definitions.js';
import { REGISTER_DEFINITIONS } from '../../domain/registers.js';
import { connectionOption } from '../../domain/repositories.js';
import { conflict, RetryableConflict, validationFailed, type FieldError } from '../../errors.js';
import { asLinkClaim, evidenceLinkCreateWrites, linkClaimKey, readyFilesPage, toEvidence } from '../../store/evidence.js';
import { fileStillReady } from '../../store/guards.js';
import { keys, type Key } from '../../store/keys.js';
import { getMany, getOne, keyString, type Item } from '../../store/read.js';
import { connectionStillExists, listRepositoryConnections } from '../../store/repositories.js';
import type { WriteItem } from '../../store/transact.js';
import { NoQuery, PageQuery } from '../kernel/common.js';
import { ControlParams, evidenceEtag } from '../controls/access.js';
import {
  EVIDENCE_AUTHORITY,
  EVIDENCE_PATH,
  evidenceCollections,
  evidenceContextOf,
  evidencePrefetch,
  evidenceStillEditable,
  newEvidence,
  requireEvidenceEditable,
  type EvidenceContext,
} from './access.js';
import { operation } from './declare.js';

/* Links from a control's evidence to a ready file of another control, a register, a library document or a repository file. */

/** What a link takes from its source: a default title, the file facts of a file link, and what must still hold when it is written. */
interface Resolved {
  title: string;
  facts: Partial<StoredEvidence>;
  checks: WriteItem[];
}

function sourceKey(ctx: EvidenceContext, source: EvidenceSource): Key | undefined {
  if (source.kind === 'file') return keys.evidence(ctx.project.id, source.control_id, source.evidence_id);
  if (source.kind === 'repository') return keys.repositoryConnection(ctx.project.organisation_id, source.connection_id);
  return undefined;
}

const refused = (problem: FieldError) => validationFailed([problem]);

function resolve(ctx: EvidenceContext, source: EvidenceSource, read: Item | undefined): Resolved {
  switch (source.kind) {
    case 'file': {
      const found = linkableFile(read && toEvidence(read));
      if ('problem' in found) throw refused(found.problem);
      const { error_code: _, ...facts } = found.file;
      const file = { project_id: ctx.project.id, control_id: source.control_id, id: source.evidence_id, upload_id: facts.upload_id };
      const stillReady = fileStillReady(file, (current) => {
        const now = linkableFile(current);
        return refused('problem' in now ? now.problem : invalidReference('/source_evidence_id', 'was replaced meanwhile; read it again'));
      });
      // The file's status too: a malicious verdict on its bytes reaches the link as it reaches the upload (files/scan.ts).
      return { title: found.title, facts: { ...facts, file_status: 'ready', error_code: null }, checks: [stillReady] };
    }
    case 'repository': {
      const gone = () => refused(invalidReference('/connection_id', "is not a repository connection of the project's organisation"));
      if (!read) throw gone();
      return { title: titleFrom(source.path), facts: {}, checks: [connectionStillExists(ctx.project.organisation_id, source.connection_id, gone)] };
    }
    default: {
      const title = catalogueTitle(source);
      if (!title) throw refused(invalidReference('/definition_id', `is not a ${source.kind} definition`));
      return { title, facts: {}, checks: [] };
    }
  }
}

/** The identical link this control already has: 200 with that item, nothing created. */
async function alreadyLinked(found: EvidenceContext, evidenceId: string) {
  const item =
    found.evidence.items.find((e) => e.id === evidenceId) ??
    (await getOne(keys.evidence(found.project.id, found.control.id, evidenceId)).then((i) => (i ? toEvidence(i) : undefined)));
  // Deleted, with its claim, between the two reads: a fresh run links anew.
  if (!item) throw new RetryableConflict(linkChanged());
  const etag = evidenceEtag(item);
  return {
    status: 200,
    data: { ...evidenceView(item, etag), already_linked: true },
    etag,
    auditTarget: { project: found.project.id, control: found.control.id, evidence: item.id },
    auditDetails: { kind: item.kind, already_linked: true },
  };
}

const linkChanged = () =>
  conflict('evidence_link_changed', "An identical link was created or deleted while this request ran; read the control's evidence and retry.");

export const createEvidenceLink = operation({
  id: 'createEvidenceLink',
  method: 'POST',
  path: `${EVIDENCE_PATH}/links`,
  summary: 'Link a ready file of another control, a register, a library document or a repository file as evidence of a control: 201.',
  description: [
    'Body by kind: file_link (source_control_id, source_evidence_id: an uploaded file of another control of this project whose status is ready),',
    'register_link (definition_id of a register the project sees; needs view-registers), library_link (definition_id of a library definition),',
    "repository_link (connection_id of a repository connection of the project's organisation, a relative path and a ref); the metadata fields are optional, the title defaults to the source's name.",
    'A control links each source once: a repeat of an identical link (same kind and source, whatever its metadata) answers 200 with that item and already_linked true, creating nothing.',
    'Not idempotent and keeps no receipt (seed, Evidence rule 1). 422 invalid_reference for a source that does not exist or cannot be linked (an item of another project, of this control, or not an uploaded file;',
    'an unknown definition or connection), source_not_ready for a file still being scanned or refused, unreadable_reference for a register without view-registers,',
    'invalid_repository_path and invalid_ref for a path or ref git would not take, evidence_limit_reached at 50 items. 409 evidence_link_changed when an identical link came and went while the request ran.',
    'Needs an editable project and the control in a state that takes implementation edits (403).',
  ].join(' '),
  credential: ['project'],
  permission: EVIDENCE_AUTHORITY,
  success: 201,
  alsoSucceeds: { status: 200, description: 'This control already links this source: that item, with already_linked true; nothing was created.' },
  params: ControlParams,
  query: NoQuery,
  body: { schema: CreateEvidenceLink, mediaType: 'application/json' },
  response: EvidenceLinkResult,
  etag: true,
  errors: [409],
  sideEffects: ['Creates an evidence item of the control and its claim on the source, unless the control already links it', 'Writes an audit record'],
  prefetch: evidencePrefetch,
  prefetchCollections: evidenceCollections,
  handle: async (ctx, { params, body }) => {
    const found = evidenceContextOf(ctx, params);
    requireEvidenceEditable(found);
    const source = sourceOf(body);
    const unreadable = unreadableSource(source, ctx.caller.permissions);
    if (unreadable) throw validationFailed([unreadable]);
    if (source.kind === 'file' && source.control_id === params.control) {
      throw refused(invalidReference('/source_control_id', 'names this control; its own files are its evidence already'));
    }
    const claim = linkClaimKey(params.project, params.control, source);
    const wanted = sourceKey(found, source);
    const read = await getMany(wanted ? [claim, wanted] : [claim]);
    const claimed = asLinkClaim(read.get(keyString(claim)));
    if (claimed) return alreadyLinked(found, claimed.evidence_id);
    const resolved = resolve(found, source, wanted ? read.get(keyString(wanted)) : undefined);
    const item = newEvidence(ctx, params, body.kind, { ...linkMetadataOf(body), title: body.title ?? resolved.title }, { ...resolved.facts, source });
    const etag = evidenceEtag(item);
    return {
      data: { ...evidenceView(item, etag), already_linked: false },
      etag,
      location: evidenceUrl(item),
      auditTarget: { ...params, evidence: item.id },
      auditDetails: { kind: body.kind },
      // A claim taken meanwhile is an identical link made meanwhile: a fresh run reads it and answers already_linked.
      writes: [
        ...evidenceLinkCreateWrites({ ...item, source }, () => new RetryableConflict(linkChanged())),
        ...resolved.checks,
        ...evidenceStillEditable(found),
      ],
    };
  },
});

export const listEvidenceLinkOptions = operation({
  id: 'listEvidenceLinkOptions',
  method: 'GET',
  path: `${EVIDENCE_PATH}/link-options`,
  summary: 'What this caller may link as evidence of the control: ready files of other controls, registers, library documents and repository connections.',
  description: [
    "Sections by kind. files: the ready uploaded files of the project's other controls, by control in catalogue order then oldest first, paged by page[number] and page[size]",
    'with has_more instead of a total (a total would read every file of the project); registers only with view-registers (otherwise absent and named in redacted_fields);',
    "library: the library definitions; repositories: the organisation's repository connections, without credentials. linked says whether this control links the option already.",
    'Creates no records.',
  ].join(' '),
  credential: ['project'],
  permission: { project: [['view-controls']] },
  success: 200,
  params: ControlParams,
  query: PageQuery,
  response: EvidenceLinkOptions,
  sideEffects: [],
  prefetch: evidencePrefetch,
  prefetchCollections: evidenceCollections,
  handle: async (ctx, { params, query }) => {
    const { project, evidence } = evidenceContextOf(ctx, params);
    const page = { number: query['page[number]'], size: query['page[size]'] };
    const [files, connections] = await Promise.all([readyFilesPage(project.id, params.control, page), listRepositoryConnections(project.organisation_id)]);
    const linked = (source: EvidenceSource) => evidence.items.some((e) => sameSource(e.source, source));
    const seesRegisters = ctx.caller.permissions.has('view-registers');
    return {
      data: {
        files: {
          items: files.items.map((f) => fileOption(f, linked({ kind: 'file', control_id: f.control_id, evidence_id: f.id }))),
          page_number: page.number,
          page_size: page.size,
          has_more: files.hasMore,
        },
        ...(seesRegisters ? { registers: REGISTER_DEFINITIONS.map((d) => registerOption(d, linked({ kind: 'register', definition_id: d.id }))) } : {}),
        library: LIBRARY_DEFINITIONS.map((d) => libraryOption(d, linked({ kind: 'library', definition_id: d.id }))),
        repositories: connections.map(connectionOption),
        redacted_fields: seesRegisters ? [] : ['registers'],
      },
    };
  },
});

export const evidenceLinkOperations = [createEvidenceLink, listEvidenceLinkOptions];
