import { describe, expect, it } from 'vitest';
import { decodeXml } from '#runtime/services/soap/xml-dom.js';

const xml = (encoding: string) => `<?xml version="1.0" encoding="${encoding}"?><a>Größe €</a>`;

describe('decodeXml', () => {
  it.each<[string, Buffer, string | undefined]>([
    ['UTF-8 without a declaration', Buffer.from('<a>Größe €</a>', 'utf8'), undefined],
    ['UTF-8 with a byte order mark (dropped)', Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(xml('utf-8'))]), undefined],
    ['ISO-8859-1 named by the declaration', Buffer.from(xml('ISO-8859-1').replace(' €', ''), 'latin1'), undefined],
    ['UTF-16LE with a byte order mark', Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(xml('UTF-16'), 'utf16le')]), undefined],
    ['UTF-16BE without a byte order mark', Buffer.from(xml('UTF-16'), 'utf16le').swap16(), undefined],
    ['the charset of the content type before the declaration', Buffer.from(xml('utf-8').replace(' €', ''), 'latin1'), 'iso-8859-1'],
    ['an encoding nobody knows, read as UTF-8', Buffer.from(xml('x-unknown'), 'utf8'), undefined],
  ])('%s', (_, bytes, charset) => {
    const text = decodeXml(bytes, charset);
    expect(text).toMatch(/^<(\?xml|a)/);
    expect(text).toContain('<a>Größe');
  });
});
