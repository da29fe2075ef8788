import MarkdownIt, { type Token } from 'markdown-it';
import { type TokenHandler, Tokenizer, TokenizerMode } from 'parse5';

/**
 * What library Markdown may contain (seed, Errors part 4): raw HTML of elements and well-formed
 * comments only, whose attributes are class and id only, none of the elements that run code or
 * pull in other documents, and link and image targets without a script or inline-data scheme. The
 * text is parsed as the renderer will parse it (CommonMark with raw HTML and linkify), so that
 * what is checked is what would be rendered.
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
 * what the check, reading each piece of raw HTML on its own, takes for a later tag's attribute
 * value; refusing them all is also what lets the check read every piece in the data state.
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
  // Linkify never yields a refused scheme (its schemas are http:, https:, ftp:, mailto: and //),
  // yet it stays: it moves where other constructs start, and http://a.com/`<b onclick=x>` is a
  // link and a live tag with it, a code span without.
  const md = new MarkdownIt({ html: true, linkify: true });
  // The default validateLink silently turns a refused target into text; recording every target and
  // keeping it lets the policy refuse the whole text instead.
  md.validateLink = (url: string) => {
    targets.push(url);
    return true;
  };
  return md;
}

/**
 * The tokenizer's parse errors that mark a construct a browser ends elsewhere than it seems to end,
 * or that the policy does not allow: every markup declaration but a well-formed comment and every
 * processing instruction (a browser ends them at the first >, other parsers some later), and a
 * malformed comment (13.1.6 Comments).
 */
const REFUSED_ERRORS: Readonly<Record<string, string>> = {
  'cdata-in-html-content': 'a CDATA section, which a browser ends at its first >',
  'incorrectly-opened-comment': 'a markup declaration other than a comment; raw HTML may hold elements and comments only',
  'unexpected-question-mark-instead-of-tag-name': 'a processing instruction; raw HTML may hold elements and comments only',
  'abrupt-closing-of-empty-comment': 'a comment that starts with > or ->, where a browser ends it',
  'nested-comment': 'a comment that contains <!--',
  'incorrectly-closed-comment': 'a comment that a browser ends at --!>',
  'eof-in-comment': 'a comment that never ends',
};

const UNFINISHED = 'never ends; browsers would read the markup after it as part of it';

/** The construct's source from its start, up to its first > and at most a few words, to name it in a detail. */
function quoted(html: string, from: number): string {
  const close = html.indexOf('>', from);
  const end = Math.min(close === -1 ? html.length : close + 1, from + 24);
  return html.slice(from, end);
}

/**
 * Raw HTML read by parse5's tokenizer, the HTML standard's reference implementation, so that a tag
 * or comment ends exactly where a browser ends it. It starts and stays in the data state: the
 * elements whose content a browser reads in another state (raw text, RCDATA, script, foreign
 * content) are refused by name, which refuses the whole text. Parse errors are reported before
 * the comment or declaration they belong to is emitted, so each is pinned on the next one; a
 * piece that leaves the tokenizer outside the data state ends inside a construct.
 */
function htmlViolations(html: string): MarkdownViolation[] {
  const found: MarkdownViolation[] = [];
  const construct = (from: number, why: string) => found.push({ code: MARKDOWN_CODES.construct, detail: `contains ${quoted(html, from)}: ${why}` });
  let pending: string[] = [];
  let lastEnd = 0;
  let lastDeclaration: { start: number; refused: boolean } | undefined;
  const declaration = (start: number, always?: string) => {
    const why = always ?? pending.map((code) => REFUSED_ERRORS[code]).find((reason) => reason !== undefined);
    if (why) construct(start, why);
    lastDeclaration = { start, refused: why !== undefined };
  };
  const text = (token: { location: { endOffset: number } | null }) => {
    lastEnd = token.location?.endOffset ?? lastEnd;
    lastDeclaration = undefined;
  };
  const emitted = (end: number | undefined) => {
    pending = [];
    lastEnd = end ?? lastEnd;
  };
  const handler: TokenHandler = {
    onStartTag: (token) => {
      const name = token.tagName;
      if (REFUSED_ELEMENTS.has(name)) found.push({ code: MARKDOWN_CODES.element, detail: `contains a <${name}> element, which is not allowed` });
      for (const { name: attribute } of token.attrs) {
        if (!ALLOWED_ATTRIBUTES.has(attribute)) {
          found.push({
            code: MARKDOWN_CODES.attribute,
            detail: `contains the attribute ${attribute} on <${name}>; HTML attributes are limited to class and id`,
          });
        }
      }
      text(token);
      pending = [];
    },
    onEndTag: (token) => {
      text(token);
      pending = [];
    },
    onComment: (token) => {
      declaration(token.location?.startOffset ?? lastEnd);
      emitted(token.location?.endOffset);
    },
    onDoctype: (token) => {
      declaration(token.location?.startOffset ?? lastEnd, 'a doctype; raw HTML may hold elements and comments only');
      emitted(token.location?.endOffset);
    },
    onCharacter: text,
    onNullCharacter: text,
    onWhitespaceCharacter: text,
    onParseError: (error) => pending.push(error.code),
    onEof: () => {
      if (tokenizer.state === TokenizerMode.DATA) return;
      if (pending.includes('eof-before-tag-name')) construct(html.lastIndexOf('<'), `a < that ${UNFINISHED}`);
      else if (pending.includes('eof-in-tag')) construct(lastEnd, `a tag that ${UNFINISHED}`);
      else if (lastDeclaration && !lastDeclaration.refused) construct(lastDeclaration.start, `a bogus comment that ${UNFINISHED}`);
    },
  };
  const tokenizer = new Tokenizer({ sourceCodeLocationInfo: true }, handler);
  tokenizer.write(html, true);
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
    if (token.type === 'html_block' || token.type === 'html_inline') found.push(...htmlViolations(token.content));
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
