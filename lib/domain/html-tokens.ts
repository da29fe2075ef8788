/**
 * A piece of raw HTML as the HTML living standard's tokenizer (13.2.5) reads it from the data
 * state: its start tags with their attribute names, and the constructs a policy cannot vouch for.
 * Every state a start tag, an end tag or a comment passes through is followed, so that a tag or a
 * comment ends exactly where a browser ends it. The raw-text, RCDATA and script states are not:
 * the elements that enter them are refused by the caller, which refuses the whole text.
 */
export type HtmlPiece = { kind: 'tag'; name: string; attributes: string[] } | { kind: 'fault'; detail: string };

/** The tokenizer's whitespace; CR counts too, since a browser turns it into LF before tokenizing. */
const WHITESPACE = new Set(['\t', '\n', '\f', '\r', ' ']);
const isAlpha = (c: string | undefined) => c !== undefined && /^[A-Za-z]$/.test(c);
const asciiLower = (s: string) => s.replace(/[A-Z]/g, (c) => c.toLowerCase());
const opening = (html: string, at: number) => /^<[^\s>]{0,20}/.exec(html.slice(at))?.[0] ?? '<';

/** Why a comment's text is not well formed (13.1.6 Comments), if it is not. */
function commentFault(text: string): string | undefined {
  if (text.startsWith('>')) return 'starts with >';
  if (text.startsWith('->')) return 'starts with ->';
  if (text.includes('--!>')) return 'contains --!>';
  if (text.includes('<!--')) return 'contains <!--';
  if (text.endsWith('<!-')) return 'ends with <!-';
  return undefined;
}

const UNFINISHED = 'never ends; browsers would read the markup after it as part of it';

/** Where a bogus comment ends: after the first >, or nowhere. */
function bogusCommentEnd(html: string, from: number): number {
  const end = html.indexOf('>', from);
  return end === -1 ? -1 : end + 1;
}

/**
 * One tag from its name's first character: tag name, attribute name and value states. Returns
 * the index after its > and the tag, or -1 when the piece ends inside it.
 */
function readTag(html: string, from: number): [end: number, name: string, attributes: string[]] {
  let i = from;
  while (i < html.length && !WHITESPACE.has(html[i]!) && html[i] !== '/' && html[i] !== '>') i++;
  const name = asciiLower(html.slice(from, i));
  const attributes: string[] = [];
  const unfinished: [number, string, string[]] = [-1, name, attributes];
  for (;;) {
    while (WHITESPACE.has(html[i] ?? '')) i++;
    if (i >= html.length) return unfinished;
    if (html[i] === '>') return [i + 1, name, attributes];
    if (html[i] === '/') {
      i++;
      continue;
    }
    const start = i++;
    while (i < html.length && !WHITESPACE.has(html[i]!) && !'/>='.includes(html[i]!)) i++;
    attributes.push(asciiLower(html.slice(start, i)));
    while (WHITESPACE.has(html[i] ?? '')) i++;
    if (html[i] !== '=') continue;
    i++;
    while (WHITESPACE.has(html[i] ?? '')) i++;
    const quote = html[i];
    if (quote === '"' || quote === "'") {
      const close = html.indexOf(quote, i + 1);
      if (close === -1) return unfinished;
      i = close + 1;
    } else {
      while (i < html.length && !WHITESPACE.has(html[i]!) && html[i] !== '>') i++;
    }
  }
}

/**
 * The piece's start tags and faults in order. A fault is every markup declaration but a
 * well-formed comment and every processing instruction, which a browser ends at the first > where
 * other parsers end some later; a malformed comment, which a browser ends elsewhere than at its
 * first -->; and anything left open at the piece's end, which a browser would continue into the
 * HTML rendered after it.
 */
export function htmlPieces(html: string): HtmlPiece[] {
  const pieces: HtmlPiece[] = [];
  const fault = (detail: string) => pieces.push({ kind: 'fault', detail });
  for (let at = html.indexOf('<'); at !== -1; ) {
    const next = html[at + 1];
    let resume: number;
    if (next === undefined || (next === '/' && html[at + 2] === undefined)) {
      fault(`contains ${opening(html, at)} that ${UNFINISHED}`);
      resume = -1;
    } else if (html.startsWith('<!--', at)) {
      const end = html.indexOf('-->', at + 4);
      const why = commentFault(html.slice(at + 4, end === -1 ? undefined : end));
      if (why || end === -1) {
        fault(`contains a comment that ${why ?? 'never ends'}; a comment must be well formed, since browsers end others elsewhere than they seem to end`);
      }
      resume = end === -1 ? -1 : end + 3;
    } else if (next === '!' || next === '?') {
      fault(`contains ${opening(html, at)}, which is not allowed; raw HTML may hold elements and comments only`);
      resume = bogusCommentEnd(html, at + 2);
    } else if (next === '/' && !isAlpha(html[at + 2])) {
      resume = html[at + 2] === '>' ? at + 3 : bogusCommentEnd(html, at + 2);
      if (resume === -1) fault(`contains ${opening(html, at)} that ${UNFINISHED}`);
    } else if (isAlpha(next) || next === '/') {
      const endTag = next === '/';
      const [end, name, attributes] = readTag(html, at + (endTag ? 2 : 1));
      if (end === -1) fault(`contains the tag ${opening(html, at)} that ${UNFINISHED}`);
      else if (!endTag) pieces.push({ kind: 'tag', name, attributes });
      resume = end;
    } else {
      resume = at + 1;
    }
    at = resume === -1 ? -1 : html.indexOf('<', resume);
  }
  return pieces;
}
