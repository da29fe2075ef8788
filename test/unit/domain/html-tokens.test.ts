import { describe, expect, it } from 'vitest';
import { htmlPieces } from '../../../lib/domain/html-tokens.js';

const tags = (html: string) => htmlPieces(html).map((p) => (p.kind === 'tag' ? [p.name, ...p.attributes].join(' ') : `fault: ${p.detail}`));

/** Tags as the living standard's tokenizer splits them; each case is a state a lax parser gets wrong. */
const TAGS: [string, string, string[]][] = [
  ['names in ASCII lower case', '<DiV ClAsS="x">', ['div class']],
  ['a self-closing tag', '<br/>', ['br']],
  ['a solidus between attributes', '<b/class="x"/id=y/>', ['b class id']],
  ['attributes without whitespace after a quoted value', '<b class="x"onclick="y">', ['b class onclick']],
  ['an attribute name that starts with =', '<b =onclick=x>', ['b =onclick']],
  ['quotes and < inside an attribute name', '<b a"b\'c<d=1>', ['b a"b\'c<d']],
  ['an attribute without a value before >', '<b class=>', ['b class']],
  ['an unquoted value holding quotes, = and /', '<b class=a"b=c/ id=d>', ['b class id']],
  ['a > inside a quoted value', '<b class="x>y" onclick=z>', ['b class onclick']],
  ['whitespace around =', '<b class = "x" id\n=\ny>', ['b class id']],
  ['end tags and their attributes ignored', '</b onclick=x><i>', ['i']],
  ['< before a non-letter as text', 'a < b <1 <ç', []],
  ['an empty end tag as nothing', '</><b>', ['b']],
  ['a bogus end tag as a comment that ends at the first >', '</ <img onerror=x>', []],
  ['a well-formed comment hiding a tag', '<!-- <img onerror=x> --><b>', ['b']],
];

describe('the HTML tokenizer reads', () => {
  it.each(TAGS)('%s', (_name, html, expected) => {
    expect(tags(html)).toEqual(expected);
  });
});

/** Constructs a browser ends elsewhere than other parsers, or continues into what follows. */
const FAULTS: [string, string, string][] = [
  ['a CDATA section', '<![CDATA[ x ]]>', '<![CDATA['],
  ['a processing instruction', '<?xml version="1.0"?>', '<?xml'],
  ['a doctype', '<!doctype html>', '<!doctype'],
  ['a bogus comment', '<!>', '<!,'],
  ['a single-dash comment', '<!- x ->', '<!-'],
  ['an unterminated comment', '<!-- x', 'never ends'],
  ['an unterminated tag', '<b class=x', '<b'],
  ['an unterminated quoted value', '<b class="x>', '<b'],
  ['an unterminated end tag', '</b', '</b'],
  ['an unterminated bogus comment', '</ x', '</'],
  ['a < at the end', 'a <', '<'],
  ['a </ at the end', 'a </', '</'],
];

describe('the HTML tokenizer reports', () => {
  it.each(FAULTS)('%s', (_name, html, named) => {
    const [first] = htmlPieces(html);
    expect(first?.kind).toBe('fault');
    expect(first?.kind === 'fault' && first.detail).toContain(named);
  });
});
