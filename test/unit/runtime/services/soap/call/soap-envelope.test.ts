import { describe, expect, it } from 'vitest';
import { parseXml } from '#runtime/services/soap/xml-dom.js';
import { envelope, envelopeHeaders, passwordDigest, soapHeaders } from '#runtime/services/soap/call/soap-envelope.js';

const WSSE = 'http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-wssecurity-secext-1.0.xsd';
const WSU = 'http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-wssecurity-utility-1.0.xsd';

describe('SOAP envelope', () => {
  it.each([
    ['1.1', { 'Content-Type': 'text/xml; charset=utf-8', SOAPAction: '"urn:a"' }, 'http://schemas.xmlsoap.org/soap/envelope/'],
    ['1.2', { 'Content-Type': 'application/soap+xml; charset=utf-8; action="urn:a"' }, 'http://www.w3.org/2003/05/soap-envelope'],
  ] as const)('SOAP %s: headers and envelope namespace', (version, headers, ns) => {
    expect(envelopeHeaders(version, 'urn:a')).toEqual(headers);
    expect(parseXml(envelope(version, '', '<x/>', false)).documentElement?.namespaceURI).toBe(ns);
  });

  it('percent-encodes an action beyond ASCII (an IRI) and its quotes, which an HTTP header cannot carry', () => {
    expect(envelopeHeaders('1.1', 'urn:Größe/操作 "x"').SOAPAction).toBe('"urn:Gr%C3%B6%C3%9Fe/%E6%93%8D%E4%BD%9C %22x%22"');
    expect(envelopeHeaders('1.2', 'urn:操作')['Content-Type']).toBe('application/soap+xml; charset=utf-8; action="urn:%E6%93%8D%E4%BD%9C"');
  });

  it('writes generic headers, taking svc: values from the query', () => {
    const xml = soapHeaders(
      [
        { namespace: 'urn:h', name: 'Session', data: 'svc:token', mustUnderstand: true, actor: 'urn:next' },
        {
          namespace: 'urn:h',
          name: 'Trace',
          data: { id: 'svc:trace', tags: ['a', 'b'], fixed: 'x<y' },
          mustUnderstand: false,
          actor: null,
        },
      ],
      null,
      '1.1',
      { token: 'abc', trace: ['1', '2'] },
    );
    expect(xml).toBe(
      '<Session xmlns="urn:h" soap:mustUnderstand="1" soap:actor="urn:next">abc</Session>' +
        '<Trace xmlns="urn:h"><id>2</id><tags>a</tags><tags>b</tags><fixed>x&lt;y</fixed></Trace>',
    );
  });

  it('refuses an svc: value from the query that XML cannot carry, naming the parameter', () => {
    const session = { namespace: 'urn:h', name: 'Session', data: 'svc:token', mustUnderstand: false, actor: null };
    expect(() => soapHeaders([session], null, '1.1', { token: 'a\u0002b' })).toThrow(
      "Field 'token' holds the character U+0002, which XML cannot carry.",
    );
  });

  it('writes a WS-Security UsernameToken whose digest is base64(SHA-1(nonce + created + password))', () => {
    const xml = soapHeaders(
      [],
      { username: 'bob', password: 'pw', tokenId: 'Token-1', passwordType: 'PasswordDigest' },
      '1.1',
      {},
      new Date('2024-05-06T07:08:09.123Z'),
    );
    const security = parseXml(`<r xmlns:soap="urn:s">${xml}</r>`).documentElement!.firstChild as Element;
    const token = security.getElementsByTagNameNS(WSSE, 'UsernameToken')[0];
    const text = (local: string, ns = WSSE) => security.getElementsByTagNameNS(ns, local)[0]?.textContent ?? '';
    expect(security.getAttribute('soap:mustUnderstand')).toBe('1');
    expect(token.getAttributeNS(WSU, 'Id')).toBe('Token-1');
    expect(text('Username')).toBe('bob');
    expect(text('Created', WSU)).toBe('2024-05-06T07:08:09Z');
    const nonce = Buffer.from(text('Nonce'), 'base64');
    expect(nonce).toHaveLength(16);
    expect(text('Password')).toBe(passwordDigest(nonce, '2024-05-06T07:08:09Z', 'pw'));
    // The profile's own example: nonce, created and password give this digest.
    expect(passwordDigest(Buffer.from('LKqI6G/AikKCQrN0zqZFlg==', 'base64'), '2010-09-16T07:50:45Z', 'userpassword')).toBe(
      'tuOSpGlFlIXsozq4HFNeeGeFLEI=',
    );
  });
});
