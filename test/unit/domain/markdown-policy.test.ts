import MarkdownIt from 'markdown-it';
import { describe, expect, it } from 'vitest';
import { MARKDOWN_CODES, markdownViolations, normalisedTarget, refusedScheme } from '../../../lib/domain/markdown-policy.js';

const { attribute, construct, element, scheme } = MARKDOWN_CODES;

/** Hostile inputs: each is refused with the code and a detail that names what offends. */
const HOSTILE: [string, string, string, string][] = [
  ['a script element', '<script>alert(1)</script>', element, '<script>'],
  ['a script element in mixed case', '<ScRiPt>alert(1)</ScRiPt>', element, '<script>'],
  ['a style element', '<style>body{display:none}</style>', element, '<style>'],
  ['an iframe', '<iframe></iframe>', element, '<iframe>'],
  ['an object', '<object></object>', element, '<object>'],
  ['an embed', '<embed>', element, '<embed>'],
  ['an svg (foreign content parses differently)', '<svg><circle/></svg>', element, '<svg>'],
  ['an event handler on an image', '<img onerror="alert(1)">', attribute, 'onerror'],
  ['an event handler in upper case', '<b ONCLICK="x">b</b>', attribute, 'onclick'],
  ['an unquoted event handler', '<b onmouseover=alert(1)>b</b>', attribute, 'onmouseover'],
  ['a style attribute', '<div style="color:red">x</div>', attribute, 'style'],
  ['an href attribute, even to https', '<a href="https://example.com">x</a>', attribute, 'href'],
  ['a src attribute', '<img src="https://example.com/a.png">', attribute, 'src'],
  ['a URL-bearing form attribute', '<form action="https://example.com"></form>', attribute, 'action'],
  ['a data attribute', '<span data-x="1">x</span>', attribute, 'data-x'],
  ['a tag that spans lines inside a paragraph', 'text <a\nonclick="x">y</a>', attribute, 'onclick'],
  ['HTML nested in a list item', '- item <b onclick="x">b</b>', attribute, 'onclick'],
  ['HTML nested in a block quote', '> <div style="x">q</div>', attribute, 'style'],
  ['HTML nested in a table cell', '| a | b |\n|---|---|\n| <i onfocus=x>i</i> | y |', attribute, 'onfocus'],
  ['HTML nested in emphasis', '*<span onclick="x">s</span>*', attribute, 'onclick'],
  ['a javascript: link', '[x](javascript:alert(1))', scheme, 'javascript:'],
  ['a javascript: link in mixed case', '[x](JaVaScRiPt:alert(1))', scheme, 'javascript:'],
  ['a javascript: link with surrounding spaces', '[x]( javascript:alert(1) )', scheme, 'javascript:'],
  ['a javascript: link in angle brackets', '[x](<javascript:alert(1)>)', scheme, 'javascript:'],
  ['a javascript: link hidden by an entity', '[x](&#106;avascript:alert(1))', scheme, 'javascript:'],
  ['a javascript: link split by an encoded tab', '[x](java&#x09;script:alert(1))', scheme, 'javascript:'],
  ['a javascript: link split by a percent-encoded line feed', '[x](java%0Ascript:alert(1))', scheme, 'javascript:'],
  ['a javascript: link with a doubly escaped letter', '[x](&amp;#106;avascript:alert(1))', scheme, 'javascript:'],
  ['a vbscript: link', '[x](vbscript:msgbox(1))', scheme, 'vbscript:'],
  ['a data: link', '[x](data:text/html;base64,PHNjcmlwdD4=)', scheme, 'data:'],
  ['a data: image', '![x](data:image/png;base64,AAAA)', scheme, 'data:'],
  ['a file: link', '[x](file:///etc/passwd)', scheme, 'file:'],
  ['a javascript: reference definition', '[x][r]\n\n[r]: javascript:alert(1)', scheme, 'javascript:'],
  ['an unused data: reference definition', '[r]: data:text/html,x "title"', scheme, 'data:'],
  ['a javascript: image reference', '![x][r]\n\n[r]: javascript:alert(1)', scheme, 'javascript:'],
  ['a javascript: autolink', '<javascript:alert(1)>', scheme, 'javascript:'],
  ['a data: autolink', '<data:text/html,x>', scheme, 'data:'],
  ['a CDATA section, a bogus comment to a browser that ends at the first >', 'a <![CDATA[ ><img src=x onerror=alert(1)> ]]> b', construct, '<![CDATA['],
  ['a CDATA section as a block', '<![CDATA[ ><img src=x onerror=alert(1)> ]]>', construct, '<![CDATA['],
  ['a processing instruction', 'a <?x ><img src=x onerror=alert(1)> ?> b', construct, '<?x'],
  ['a declaration', 'a <!x ><img src=x onerror=alert(1)> b', construct, '<!x'],
  ['a doctype', '<!DOCTYPE html>', construct, '<!DOCTYPE'],
  ['a comment a browser ends at its opening <!-->', 'a <!--> <img src=x onerror=alert(1)> --> b', construct, 'starts with >'],
  ['a comment a browser ends at its opening <!--->', '<!---> x -->', construct, '<!--->'],
  ['a comment a browser ends at --!>', 'a <!-- x --!> <img src=x onerror=alert(1)> --> b', construct, '--!>'],
  ['a comment a browser ends at --!> as a block', '<!-- x --!> <img src=x onerror=alert(1)> -->', construct, '--!>'],
  ['a nested comment opening', 'a <!-- x <!-- y --> b', construct, 'contains <!--'],
  ['a comment ending in a nested opening', 'a <!-- x <!---> b', construct, '<!-- x <!--->'],
  ['an unterminated comment that would swallow later markup', '<div>\n<!-- open\n\nb <b class="--><img src=x onerror=alert(1)>">', construct, 'never ends'],
  ['a tag left open in one HTML block, which swallows the next', '<div class="a\n\n<b class="><img src=x onfocus=alert(1) autofocus>">', construct, '<div'],
  ['a bogus end tag left open in one HTML block', '<div>\n</ x\n\n<b class="><img src=x onfocus=alert(1) autofocus>">', construct, '</'],
  ['an xmp element (raw text that hides markup from the check)', '<xmp><!-- </xmp><img src=x onerror=alert(1)> --></xmp>', element, '<xmp>'],
  ['a noembed element', '<noembed><!-- </noembed><img src=x onerror=alert(1)> --></noembed>', element, '<noembed>'],
  ['a noframes element', '<noframes>x</noframes>', element, '<noframes>'],
  ['a plaintext element', '<plaintext>x', element, '<plaintext>'],
  ['a title element opened in one tag and closed in another', 'a <title> b <b class="</title><img src=x onerror=alert(1)>"> c', element, '<title>'],
  ['a textarea element', 'a <textarea> b <b class="</textarea><img src=x onerror=alert(1)>"> c', element, '<textarea>'],
  ['a tag that only linkify releases from a code span', 'http://a.com/`<b onclick=alert(1)>x</b>`', attribute, 'onclick'],
];

describe('the library Markdown policy refuses', () => {
  it.each(HOSTILE)('%s', (_name, source, code, named) => {
    const found = markdownViolations(source);
    expect(found.map((v) => v.code)).toContain(code);
    expect(found.find((v) => v.code === code)?.detail).toContain(named);
  });

  it('names every offending attribute of one tag once', () => {
    expect(markdownViolations('<img src="x" onerror="y">').map((v) => v.detail)).toEqual([
      'contains the attribute src on <img>; HTML attributes are limited to class and id',
      'contains the attribute onerror on <img>; HTML attributes are limited to class and id',
    ]);
  });

  it('reports a repeated offence once', () => {
    expect(markdownViolations('[a](javascript:1) [b](javascript:2)')).toHaveLength(1);
  });
});

/** Acceptable inputs: what policies and procedures are written with. */
const ACCEPTABLE: [string, string][] = [
  ['plain prose with headings and lists', '# Policy\n\nScope:\n\n1. One\n2. Two\n'],
  ['class and id attributes', '<div class="note" id="scope">Scope</div>'],
  ['an anchor with id only', '<a id="top"></a>'],
  ['https, http, mailto and relative links', '[a](https://example.com) [b](http://example.com) [c](mailto:a@example.com) [d](#scope) [e](../x)'],
  ['a linkified bare address', 'See www.example.com and https://example.com/x.'],
  ['an https autolink', '<https://example.com>'],
  ['a word that merely starts like a scheme', '[x](javascript-guide.html) and datasheet: values'],
  ['HTML inside a code span', '`<img onerror=x>`'],
  ['HTML inside a fenced code block', '```html\n<script>alert(1)</script>\n```'],
  ['HTML inside an indented code block', '    <iframe src="x"></iframe>'],
  ['HTML written as escaped text', '&lt;script&gt;alert(1)&lt;/script&gt;'],
  ['an HTML comment', '<!-- reviewed 2026 -->'],
  ['an empty HTML comment', '<!---->'],
  ['a comment inside a paragraph', 'Scope <!-- reviewed 2026 --> applies.'],
  ['a comment with dashes and a bang inside', '<!-- a - b -- c --! d ! -->'],
  ['a comment over several lines inside an HTML block', '<div class="note">\n<!-- first\nsecond -->\n</div>'],
  ['a table', '| a | b |\n|---|---|\n| 1 | 2 |'],
];

describe('the library Markdown policy accepts', () => {
  it.each(ACCEPTABLE)('%s', (_name, source) => {
    expect(markdownViolations(source)).toEqual([]);
  });

  it('text CommonMark does not read as a tag, which the renderer escapes', () => {
    const source = '<img/src=x/onerror=alert(1)>';
    expect(markdownViolations(source)).toEqual([]);
    expect(new MarkdownIt({ html: true }).render(source)).not.toContain('<img');
  });
});

describe('link targets', () => {
  it('normalises entities, percent-escapes, whitespace and case', () => {
    expect(normalisedTarget(' Java&#x0A;Script%3Aalert(1)')).toBe('javascript:alert(1)');
  });

  it('names the refused scheme and nothing for others', () => {
    expect(refusedScheme('DATA:text/plain,x')).toBe('data');
    expect(refusedScheme('https://example.com/javascript:')).toBeUndefined();
  });
});
