import { parseAssertionDocument } from './assertion-format.js';
import { jsonOf } from './json.js';
import { isComponentDefinition, parseComponentDefinition } from './oscal-component.js';
import type { ParsedImport } from './rows.js';

/** A structured artefact (the `import` operation): an OSCAL component definition, else this service's assertion format. */
export function parseStructured(bytes: Uint8Array): ParsedImport {
  const json = jsonOf(bytes);
  return isComponentDefinition(json) ? parseComponentDefinition(json) : parseAssertionDocument(json);
}
