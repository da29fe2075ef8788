import MarkdownIt, { type Token } from 'markdown-it';
import { Parser } from 'htmlparser2';

/**
 * What library Markdown may contain (seed, Errors part 4): raw HTML of elements and well-formed
 * comments only, whose attributes are class and id only, none of the elements that run code or
 * pull in other documents, and link and image targets without a script or inline-data scheme. The text is parsed as the renderer will parse it
 * (CommonMark with raw HTML and linkify), so that what is checked is what would be rendered.
 */
export const MARKDOWN_CODES = {
  attribute: 'markdown_attribute_not_allowed',
  construct: 'markdown_html_construct_not_allowed',
  element: 'markdown_element_not_allowed',
  scheme: 'markdown_link_scheme_not_allowed',
} as const;

export interface MarkdownViolation {
  code: (typeof MARKDOWN_CODES)[keyof typeof MARKDOWN_CODES];
  detail: string;
}

const ALLOWED_ATTRIBUTES: ReadonlySet<string> = new Set(['class', 'id']);

/**
 * Beyond the script, style and embedding elements: frames and applets embed like iframes; base,
 * link and meta redirect or load other documents; svg, math, template and noscript parse their
 * content differently from the surrounding HTML, the classic route to markup that mutates into
 * script after sanitising. A browser reads the content of the raw-text elements (title, textarea,
 * xmp, noembed, noframes, plaintext) as text up to their end tag wherever it occurs, also inside
 * what the check, parsing each piece of raw HTML on its own, reads as a comment or an attribute
 * value, so that markup after it is live yet unchecked.
 */
const REFUSED_ELEMENTS: ReadonlySet<string> = new Set([
  'script',
  'style',
  'iframe',
  'frame',
  'frameset',
  'object',
  'embed',
  'applet',
  'base',
  'link',
  'meta',
  'svg',
  'math',
  'template',
  'noscript',
  'title',
  'textarea',
  'xmp',
  'noembed',
  'noframes',
  'plaintext',
]);

/** The parser's own entity and percent decoding, so that the check decodes as the renderer does. */
const UTILITIES = new MarkdownIt().utils;

/** file: reaches the reader's own disk from a rendered document, as markdown-it's own default refuses too. */
const REFUSED_SCHEMES = ['javascript', 'vbscript', 'data', 'file'] as const;

/**
 * A link target as a browser would read its scheme: entities and percent-escapes decoded (repeatedly,
 * since a target may be escaped twice), then whitespace and control characters dropped, lower case.
 */
export function normalisedTarget(target: string): string {
  const { unescapeAll, lib } = UTILITIES;
  let value = target;
  for (let round = 0; round < 5; round++) {
    const decoded = lib.mdurl.decode(unescapeAll(value), '');
    if (decoded === value) break;
    value = decoded;
  }
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are exactly what browsers drop from a scheme.
  return value.replace(/[\s\u0000-\u001F\u007F-\u009F\u200B-\u200D\u2060\uFEFF]/g, '').toLowerCase();
}

export function refusedScheme(target: string): string | undefined {
  const normalised = normalisedTarget(target);
  return REFUSED_SCHEMES.find((scheme) => normalised.startsWith(`${scheme}:`));
}

/** Every target markdown-it considers (links, images, autolinks, reference definitions, linkified text), kept rather than dropped. */
function parserRecording(targets: string[]) {
  const md = new MarkdownIt({ html: true, linkify: true });
  // The default validateLink silently turns a refused target into text; recording every target and
  // keeping it lets the policy refuse the whole text instead.
  md.validateLink = (url: string) => {
    targets.push(url);
    return true;
  };
  return md;
}

function htmlViolations(html: string): MarkdownViolation[] {
  const found: MarkdownViolation[] = [];
  const parser = new Parser({
    onopentag(name, attributes) {
      if (REFUSED_ELEMENTS.has(name)) found.push({ code: MARKDOWN_CODES.element, detail: `contains a <${name}> element, which is not allowed` });
      for (const attribute of Object.keys(attributes)) {
        if (!ALLOWED_ATTRIBUTES.has(attribute)) {
          found.push({
            code: MARKDOWN_CODES.attribute,
            detail: `contains the attribute ${attribute} on <${name}>; HTML attributes are limited to class and id`,
          });
        }
      }
    },
  });
  parser.write(html);
  parser.end();
  return found;
}

const MARKUP_OPENING = /<[!?]/g;

/** Why a comment's text is not well formed (HTML living standard, 13.1.6 Comments), if it is not. */
function commentFault(text: string): string | undefined {
  if (text.startsWith('>')) return 'starts with >';
  if (text.startsWith('->')) return 'starts with ->';
  if (text.includes('--!>')) return 'contains --!>';
  if (text.includes('<!--')) return 'contains <!--';
  if (text.endsWith('<!-')) return 'ends with <!-';
  return undefined;
}

/**
 * A browser's tokenizer reads every markup declaration but a comment (<![CDATA[, <!DOCTYPE, <!x)
 * and every processing instruction as a bogus comment or doctype that ends at the first >, and
 * ends a malformed comment early (<!-->, --!>) or, unterminated, late, in a later piece of HTML;
 * markdown-it and htmlparser2 end some of these elsewhere, and what lies between the two ends is
 * live in the browser yet unseen by the check. Only a well-formed comment ends at its first -->
 * for every reader, so it is the one construct allowed besides elements.
 */
function constructViolations(html: string): MarkdownViolation[] {
  const found: MarkdownViolation[] = [];
  MARKUP_OPENING.lastIndex = 0;
  for (let match = MARKUP_OPENING.exec(html); match; match = MARKUP_OPENING.exec(html)) {
    const at = match.index;
    if (!html.startsWith('<!--', at)) {
      const opening = /^<[!?][^\s>]{0,20}/.exec(html.slice(at))?.[0];
      found.push({ code: MARKDOWN_CODES.construct, detail: `contains ${opening}, which is not allowed; raw HTML may hold elements and comments only` });
      continue;
    }
    const end = html.indexOf('-->', at + 4);
    const fault = commentFault(html.slice(at + 4, end === -1 ? undefined : end)) ?? (end === -1 ? 'never ends' : undefined);
    if (fault) {
      found.push({
        code: MARKDOWN_CODES.construct,
        detail: `contains a comment that ${fault}; a comment must be well formed, since browsers end others elsewhere than they seem to end`,
      });
    }
    if (end === -1) break;
    MARKUP_OPENING.lastIndex = end + 3;
  }
  return found;
}

function walk(tokens: readonly Token[], visit: (t: Token) => void): void {
  for (const token of tokens) {
    visit(token);
    if (token.children) walk(token.children, visit);
  }
}

/** The policy's findings, each once, in the order they occur; none for acceptable Markdown. */
export function markdownViolations(source: string): MarkdownViolation[] {
  const targets: string[] = [];
  const tokens = parserRecording(targets).parse(source, {});
  const found: MarkdownViolation[] = [];
  walk(tokens, (token) => {
    if (token.type === 'html_block' || token.type === 'html_inline') found.push(...constructViolations(token.content), ...htmlViolations(token.content));
    for (const name of ['href', 'src']) {
      const target = token.attrGet(name);
      if (target !== null) targets.push(String(target));
    }
  });
  for (const target of targets) {
    const scheme = refusedScheme(target);
    if (scheme) found.push({ code: MARKDOWN_CODES.scheme, detail: `links to a ${scheme}: target, which is not allowed` });
  }
  const seen = new Set<string>();
  return found.filter((v) => {
    const key = `${v.code}\n${v.detail}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
