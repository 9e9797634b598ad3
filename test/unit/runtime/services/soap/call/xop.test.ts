import { describe, expect, it } from 'vitest';
import { xopEnvelope } from '#runtime/services/soap/call/xop.js';

const envelope = (inner: string) =>
  `<?xml version="1.0"?><s:Envelope xmlns:s="http://schemas.xmlsoap.org/soap/envelope/"><s:Body><r>${inner}</r></s:Body></s:Envelope>`;
const include = (cid: string, closing = false) =>
  `<xop:Include xmlns:xop="http://www.w3.org/2004/08/xop/include" href="cid:${cid}"${closing ? '></xop:Include>' : '/>'}`;

/** A multipart/related body: the parts, each with its headers, between boundary lines. */
function multipart(boundary: string, parts: Array<[string, Buffer | string]>): Buffer {
  const chunks = parts.flatMap(([headers, content]) => [
    Buffer.from(`--${boundary}\r\n${headers}\r\n\r\n`),
    Buffer.from(content),
    Buffer.from('\r\n'),
  ]);
  return Buffer.concat([Buffer.from('preamble\r\n'), ...chunks, Buffer.from(`--${boundary}--\r\n`)]);
}

describe('MTOM answers (XOP)', () => {
  it('inlines each xop:Include as the base64 of its part, finding the root by the start parameter', () => {
    const binary = Buffer.from([0, 1, 2, 255, 13, 10, 45, 45]);
    const body = multipart('uuid:b1', [
      ['Content-Type: application/octet-stream\r\nContent-Transfer-Encoding: binary\r\nContent-ID: <img@x.org>', binary],
      [
        'Content-Type: application/xop+xml; charset=UTF-8; type="text/xml"\r\nContent-ID: <root.message@cxf.apache.org>',
        envelope(`<data>${include('img%40x.org')}</data><name>Größe</name><other>${include('text@x.org', true)}</other>`),
      ],
      ['Content-ID: <text@x.org>\r\nContent-Transfer-Encoding: base64', 'aGVs\r\nbG8='],
    ]);
    const text = xopEnvelope(
      body,
      'multipart/related; type="application/xop+xml"; boundary="uuid:b1"; start="<root.message@cxf.apache.org>"; start-info="text/xml"',
    );
    expect(text).toBe(envelope(`<data>${binary.toString('base64')}</data><name>Größe</name><other>aGVsbG8=</other>`));
  });

  it('takes the first part as the root without a start parameter, and gives up without a boundary', () => {
    const body = multipart('b2', [['Content-Type: application/xop+xml', envelope('<x>1</x>')]]);
    expect(xopEnvelope(body, 'multipart/related; boundary=b2')).toBe(envelope('<x>1</x>'));
    expect(xopEnvelope(body, 'multipart/related')).toBeNull();
  });
});
