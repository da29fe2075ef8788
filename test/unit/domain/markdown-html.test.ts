import { describe, expect, it } from 'vitest';
import { MARKDOWN_CODES, markdownViolations } from '../../../lib/domain/markdown-policy.js';

/** The raw HTML as the last part of an HTML block, so that CommonMark hands it to the check whole and as is. */
const inBlock = (html: string) => markdownViolations(`<div>\n${html}`);
const attribute = (name: string, tag: string) => `contains the attribute ${name} on <${tag}>; HTML attributes are limited to class and id`;

/** Tags as the living standard's tokenizer splits them; each case is a state a lax parser gets wrong. */
const TAGS: [string, string, string[]][] = [
  ['names in ASCII lower case', '<DiV ClAsS="x" OnClick=y>', [attribute('onclick', 'div')]],
  ['a self-closing tag', '<br/>', []],
  ['a solidus between attributes', '<b/class="x"/onclick=y/>', [attribute('onclick', 'b')]],
  ['attributes without whitespace after a quoted value', '<b class="x"onclick="y">', [attribute('onclick', 'b')]],
  ['an attribute name that starts with =', '<b =onclick=x>', [attribute('=onclick', 'b')]],
  ['quotes and < inside an attribute name', '<b a"b\'c<d=1>', [attribute('a"b\'c<d', 'b')]],
  ['an attribute without a value before >', '<b class=>', []],
  ['an unquoted value holding quotes, = and /', '<b class=a"b=c/ onclick=d>', [attribute('onclick', 'b')]],
  ['a > inside a quoted value', '<b class="x>y" onclick=z>', [attribute('onclick', 'b')]],
  ['whitespace around =', '<b class = "x" onclick\n=\ny>', [attribute('onclick', 'b')]],
  ['a repeated attribute once, as a browser keeps only the first', '<b onclick=x onclick=y>', [attribute('onclick', 'b')]],
  ['end tags and their attributes ignored', '</b onclick=x><i>', []],
  ['< before a non-letter as text', 'a < b <1 <ç', []],
  ['an empty end tag as nothing', '</><b onclick=x>', [attribute('onclick', 'b')]],
  ['a bogus end tag as a comment that ends at the first >', '</ <img onerror=x>', []],
  ['a well-formed comment hiding a tag', '<!-- <img onerror=x> --><b onclick=y>', [attribute('onclick', 'b')]],
];

describe('the policy reads raw HTML tags', () => {
  it.each(TAGS)('%s', (_name, html, expected) => {
    expect(inBlock(html).map((v) => v.detail)).toEqual(expected);
  });
});

/** Constructs a browser ends elsewhere than other parsers, or continues into what follows; the detail quotes each. */
const CONSTRUCTS: [string, string, string][] = [
  ['a CDATA section', '<![CDATA[ x ]]>', '<![CDATA['],
  ['a processing instruction', '<?xml version="1.0"?>', '<?xml'],
  ['a doctype', '<!doctype html>', '<!doctype html>'],
  ['a bogus comment', '<!>', '<!>'],
  ['a single-dash comment', '<!- x ->', '<!- x ->'],
  ['an unterminated comment', '<!-- x', 'a comment that never ends'],
  ['an unterminated tag', '<b class=x', '<b class=x'],
  ['an unterminated quoted value', '<b class="x>', '<b class="x>'],
  ['an unterminated end tag', '</b', '</b'],
  ['an unterminated tag after a comment', '<!-- a --><b class=x', '<b class=x: a tag that never ends'],
  ['an unterminated bogus comment', '</ x', '</ x: a bogus comment that never ends'],
  ['a < at the end', 'a <', '<: a < that never ends'],
  ['a </ at the end', 'a </', '</: a < that never ends'],
];

describe('the policy refuses raw HTML holding', () => {
  it.each(CONSTRUCTS)('%s', (_name, html, named) => {
    const found = inBlock(html);
    expect(found.map((v) => v.code)).toEqual([MARKDOWN_CODES.construct]);
    expect(found[0]?.detail).toContain(named);
  });
});
