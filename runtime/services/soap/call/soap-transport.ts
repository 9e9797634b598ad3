/**
 * HTTP for a SOAP service, WSDL reads and calls alike: Basic credentials, the connection timeout
 * (the whole exchange must finish within it), TLS material and extra headers from the service
 * options, keep-alive connections per service. Plain HTTP goes through node:http (a SOAP call is
 * mostly transport, and axios costs a third of it); NTLM, a handshake over several requests, goes
 * through node-soap's HttpClient and its axios-ntlm, loaded only for such a service. A host that
 * cannot be reached (refused, unknown, timed out), or whose answer breaks off midway, is a 503;
 * every HTTP answer, errors included, is returned to the caller. A WSDL read redirected to another
 * origin goes there without the service's credentials and configured headers.
 */
import http from 'node:http';
import https from 'node:https';
import type { HttpClient } from 'soap';
import type { SoapOptions } from '../soap-config.js';
import { soapMessages } from '../soap-messages.js';
import { decodeXml } from '../xml-dom.js';
import { xopEnvelope } from './xop.js';
import { shownUrl, withoutUrlSecrets } from '../../../core/shown-url.js';

export interface HttpReply {
  status: number;
  /** Response headers, lower-case names. */
  headers: Record<string, string>;
  body: string;
}

export type TransportOptions = Pick<SoapOptions, 'basicAuth' | 'ntlm' | 'timeoutMs' | 'tls' | 'httpHeaders'>;

/** Redirects a WSDL read follows (calls follow none: a SOAP POST is not replayed elsewhere). */
const MAX_REDIRECTS = 5;

/** The most an answer (a reply or a WSDL document) may hold: far beyond any real one, well within memory. */
export const MAX_ANSWER_BYTES = 100 * 1024 * 1024;

class TimeoutError extends Error {}

class TooLargeError extends Error {}

/** The host closed the connection (or it broke) after its answer had begun, before the answer was complete. */
class CutOffError extends Error {}

interface AxiosLikeResponse {
  status: number;
  headers?: Record<string, unknown>;
  data?: unknown;
}

interface AxiosLikeError {
  code?: string;
  message?: string;
  response?: AxiosLikeResponse;
}

export class SoapTransport {
  private readonly httpAgent = new http.Agent({ keepAlive: true });
  private readonly httpsAgent: https.Agent;
  private readonly ntlmClient: Promise<HttpClient> | null;

  constructor(private readonly options: TransportOptions) {
    this.httpsAgent = new https.Agent({ keepAlive: true, ...options.tls });
    this.ntlmClient = options.ntlm ? import('soap').then(({ HttpClient }) => new HttpClient()) : null;
  }

  /** Closes the service's idle connections. */
  close(): void {
    this.httpAgent.destroy();
    this.httpsAgent.destroy();
  }

  /** GET (body null) or POST to `url`; resolves with any HTTP answer, rejects with a 503 when there is none. */
  exchange(url: string, body: string | null, headers: Record<string, string> = {}): Promise<HttpReply> {
    const requestHeaders: Record<string, string> = { ...this.options.httpHeaders, ...headers };
    const { basicAuth } = this.options;
    if (basicAuth) requestHeaders.Authorization = `Basic ${Buffer.from(`${basicAuth.username}:${basicAuth.password}`).toString('base64')}`;
    const exchange = this.ntlmClient
      ? this.ntlmClient.then((client) => this.ntlmExchange(client, url, body, requestHeaders))
      : this.send(url, body, requestHeaders, body === null ? MAX_REDIRECTS : 0);
    return exchange.catch((error: unknown) => {
      if (error instanceof TooLargeError) throw soapMessages.answerTooLarge.error(shownUrl(url), MAX_ANSWER_BYTES / 1024 / 1024);
      if (error instanceof CutOffError) throw soapMessages.answerCutOff.error(shownUrl(url), error.message);
      throw error instanceof TimeoutError
        ? soapMessages.hostTimeout.error(shownUrl(url), this.options.timeoutMs / 1000)
        : soapMessages.hostUnreachable.error(shownUrl(url), withoutUrlSecrets((error as Error).message));
    });
  }

  private send(url: string, body: string | null, headers: Record<string, string>, redirects: number): Promise<HttpReply> {
    return new Promise((resolve, reject) => {
      let timedOut = false;
      let tooLarge = false;
      const fail = (error: Error) => {
        clearTimeout(timer);
        reject(timedOut ? new TimeoutError() : tooLarge ? new TooLargeError() : error);
      };
      const target = new URL(url);
      const secure = target.protocol === 'https:';
      const payload = body === null ? undefined : Buffer.from(body, 'utf8');
      const request = (secure ? https : http).request(
        target,
        {
          method: body === null ? 'GET' : 'POST',
          agent: secure ? this.httpsAgent : this.httpAgent,
          headers: payload === undefined ? headers : { ...headers, 'Content-Length': String(payload.length) },
        },
        (response) => {
          const chunks: Buffer[] = [];
          let size = 0;
          response.on('data', (chunk: Buffer) => {
            size += chunk.length;
            // An endless or huge answer is cut off before it fills the memory.
            if (size <= MAX_ANSWER_BYTES) chunks.push(chunk);
            else if (!tooLarge) {
              tooLarge = true;
              request.destroy(new TooLargeError());
            }
          });
          // An answer cut off midway (the host closed, the connection broke) is no unreachable host.
          response.on('error', (error) => fail(error instanceof TooLargeError ? error : new CutOffError(error.message)));
          response.on('end', () => {
            clearTimeout(timer);
            const status = response.statusCode ?? 0;
            const location = response.headers.location;
            if (redirects > 0 && status >= 301 && status <= 308 && status !== 304 && location !== undefined) {
              const next = new URL(location, target);
              resolve(
                this.send(next.href, body, next.origin === target.origin ? headers : this.withoutCredentials(headers), redirects - 1),
              );
              return;
            }
            resolve({
              status,
              headers: headerMap(response.headers),
              body: decode(Buffer.concat(chunks), response.headers['content-type']),
            });
          });
        },
      );
      const timer = setTimeout(() => {
        timedOut = true;
        request.destroy(new TimeoutError());
      }, this.options.timeoutMs);
      request.on('error', fail);
      request.end(payload);
    });
  }

  /**
   * The headers of a request redirected to another origin (scheme, host or port): without the
   * service's Basic credentials and configured headers, which are for the host it was configured
   * with (as fetch drops `Authorization` on such a redirect; they went wherever the WSDL's host sent the read).
   */
  private withoutCredentials(headers: Record<string, string>): Record<string, string> {
    const configured = new Set(Object.keys(this.options.httpHeaders ?? {}).map((name) => name.toLowerCase()));
    return Object.fromEntries(
      Object.entries(headers).filter(([name]) => {
        const lower = name.toLowerCase();
        return lower !== 'authorization' && lower !== 'cookie' && lower !== 'proxy-authorization' && !configured.has(lower);
      }),
    );
  }

  private ntlmExchange(client: HttpClient, url: string, body: string | null, headers: Record<string, string>): Promise<HttpReply> {
    const exOptions = { ntlm: true, ...this.options.ntlm, timeout: this.options.timeoutMs, httpsAgent: this.httpsAgent };
    return new Promise((resolve, reject) => {
      client.request(
        url,
        body,
        (error: AxiosLikeError | null, response?: AxiosLikeResponse, data?: unknown) => {
          // axios-ntlm rejects on error statuses: those are answers too.
          const answer = error ? error.response : response;
          if (!answer) {
            reject(error?.code === 'ECONNABORTED' ? new TimeoutError() : new Error(error?.message ?? 'no answer'));
            return;
          }
          const text = error ? answer.data : data;
          resolve({ status: answer.status, headers: headerMap(answer.headers ?? {}), body: typeof text === 'string' ? text : '' });
        },
        headers,
        exOptions,
      );
    });
  }
}

function headerMap(headers: Record<string, unknown>): Record<string, string> {
  const map: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) if (value !== undefined) map[name.toLowerCase()] = String(value);
  return map;
}

/**
 * The body (an XML document) as text: in the charset the content type names, else as the document
 * says (xml-dom.ts); of an MTOM answer (multipart/related), the envelope with its parts inlined.
 */
function decode(body: Buffer, contentType: string | undefined): string {
  if (contentType !== undefined && /^\s*multipart\/related/i.test(contentType)) {
    const envelope = xopEnvelope(body, contentType);
    if (envelope !== null) return envelope;
  }
  return decodeXml(body, /charset="?([^";\s]+)/i.exec(contentType ?? '')?.[1]);
}
