import type { DocumentControl } from '../../domain/document-model.js';
import type { Renderer } from '../renderer.js';
import { pdfRenderer } from './document.js';
import { humanise } from './format.js';
import { COLOURS, type PdfLayout } from './layout.js';
import { byPath, counts, groupHeadings, overview, recordTable } from './sections.js';
import { table } from './table.js';

/** System Security Plan: the system, its scope and context, and how each applicable control is implemented. */
export const sspRenderer: Renderer = pdfRenderer(async (w) => {
  const { model } = w;
  const applicable = model.controls.filter((c) => c.applicability === 'y');
  overview(w);
  w.heading(2, 'Scope');
  recordTable(w, model.scope, 'No scope is recorded.');
  w.heading(2, 'Organisation context');
  recordTable(w, model.context.organisation, 'No organisation context is recorded.');
  w.heading(2, 'System context');
  recordTable(w, model.context.system, 'No system context is recorded.');
  w.heading(2, 'Network diagram');
  const diagram = model.images.diagram;
  if (diagram) w.image(diagram.bytes, w.width, 520, diagram);
  else w.paragraph('No network diagram is registered for this system.', 'italic', 9, { colour: COLOURS.muted });

  w.heading(1, 'Implementation summary');
  w.paragraph(
    `${applicable.length} of the project's ${model.controls.length} controls apply to the system. The sections that follow describe how each applicable control is implemented, grouped by the guidelines, sections and topics of the ISM.`,
  );
  table(
    w,
    [
      { header: 'Implementation status', share: 0.7 },
      { header: 'Controls', share: 0.3 },
    ],
    counts(applicable, (c) => humanise(c.implementation_status)).map(([status, n]) => [status, String(n)]),
  );

  let previous: ReturnType<typeof byPath>[number] | undefined;
  for (const group of byPath(applicable)) {
    groupHeadings(w, group, previous);
    previous = group;
    for (const control of group.controls) {
      implementation(w, control);
      await w.breathe();
    }
  }

  const excluded = model.controls.filter((c) => c.applicability === 'n');
  w.heading(1, 'Controls not applicable');
  if (!excluded.length) w.paragraph('Every control of the project applies to the system.');
  else {
    table(
      w,
      [
        { header: 'Control', share: 0.16, font: 'bold' },
        { header: 'Origin', share: 0.16 },
        { header: 'Reason', share: 0.68 },
      ],
      excluded.map((c) => [c.label, humanise(c.applicability_origin), c.applicability_comment ?? '—']),
    );
  }
});

function implementation(w: PdfLayout, control: DocumentControl): void {
  const { doc } = w;
  w.ensure(w.lineHeight('bold', 10.5) + w.lineHeight('italic', 8.5) * 2 + w.lineHeight('regular', 9.5) * 2 + 6);
  w.gap(4);
  const top = doc.y;
  w.font('bold', 10.5, COLOURS.accent);
  doc.text(control.label, w.left, top, { lineBreak: false });
  w.font('bold', 9, statusColour(control.implementation_status));
  w.fixed(humanise(control.implementation_status), w.left + 80, top + 1.2, w.width - 80, 'right');
  doc.y = top + w.lineHeight('bold', 10.5);
  w.paragraph(control.statement, 'italic', 8.5, { colour: COLOURS.muted, after: 3 });
  if (control.essential_eight.length) w.field('Essential Eight', control.essential_eight.join(', '));
  if (control.implementation_summary) w.field('Summary', control.implementation_summary);
  if (control.implementation_description) w.paragraph(control.implementation_description, 'regular', 9.5, { after: 3 });
  else w.paragraph('No implementation description is recorded.', 'italic', 9, { colour: COLOURS.muted, after: 3 });
  const notes = control.implementation_notes;
  if (notes && (notes.proposed_outcome || notes.proposed_rationale || notes.proposed_maturity)) {
    const parts = [
      notes.proposed_outcome ? `proposed outcome ${humanise(notes.proposed_outcome).toLowerCase()}` : null,
      notes.proposed_maturity ? `proposed maturity ${notes.proposed_maturity}` : null,
    ].filter((p): p is string => p !== null);
    const text = [parts.length ? `${humanise(parts.join(', '))}.` : null, notes.proposed_rationale].filter(Boolean).join(' ');
    w.field('Implementation notes', text);
  }
  for (const guidance of control.provider_guidance) w.field('Provider guidance', guidance.guidance);
  w.separator(2);
}

function statusColour(status: string | null): string {
  if (status === 'implemented') return '#1e7b34';
  if (status === 'not_implemented') return COLOURS.marking;
  if (status === null) return COLOURS.muted;
  return '#9a6700';
}
