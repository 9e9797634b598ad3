import { describe, expect, it } from 'vitest';
import { asDownload, requestedDownload, toCsv, toXml } from '#runtime/core/downloads.js';

describe('requestedDownload', () => {
  it.each([
    ['list.csv', { name: 'list.csv', format: 'csv' }],
    ['LIST.XML', { name: 'LIST.XML', format: 'xml' }],
    ['users.json', { name: 'users.json', format: 'json' }],
    ['true', { name: 'resource.json', format: 'json' }],
    ['../../etc/passwd.csv', { name: 'passwd.csv', format: 'csv' }],
    ['false', null],
    ['noextension', null],
    ['trailing.', null],
  ])('%s', (file, want) => {
    expect(requestedDownload(file)).toEqual(want);
  });
});

describe('toCsv', () => {
  it('writes a header of every key and quotes what RFC 4180 says, nested values as JSON', () => {
    const body = {
      resource: [
        { id: 1, name: 'A "quoted", name', tags: ['x'] },
        { id: 2, note: 'two\nlines' },
      ],
      meta: { count: 2 },
    };
    expect(toCsv(body)).toBe('id,name,tags,note\r\n1,"A ""quoted"", name","[""x""]",\r\n2,,,"two\nlines"\r\n');
  });

  it('writes a text a spreadsheet would take for a formula as text', () => {
    expect(toCsv([{ a: '=1+1', b: '@cmd', c: -5 }])).toBe("a,b,c\r\n'=1+1,'@cmd,-5\r\n");
  });
});

describe('toXml', () => {
  it('repeats a list under its key, escapes text and makes keys element names', () => {
    expect(
      toXml({
        resource: [
          { id: 1, 'COUNT(*)': 2, note: '<b>&' },
          { id: 2, note: null },
        ],
        meta: { count: 2 },
      }),
    ).toBe(
      '<?xml version="1.0" encoding="UTF-8"?>\n<dfapi><resource><id>1</id><COUNT___>2</COUNT___><note>&lt;b&gt;&amp;</note></resource>' +
        '<resource><id>2</id><note/></resource><meta><count>2</count></meta></dfapi>\n',
    );
  });
});

describe('asDownload', () => {
  it('leaves errors and non-JSON answers alone', () => {
    expect(asDownload('list.csv', 404, { error: { code: 404, message: 'x' } })).toBeNull();
    expect(asDownload('list.csv', 200, 'text')).toBeNull();
    expect(asDownload(undefined, 200, { resource: [] })).toBeNull();
    expect(asDownload('list.json', 200, { resource: [] })).toEqual({
      body: { resource: [] },
      headers: { 'content-disposition': 'attachment; filename="list.json"' },
    });
  });
});
