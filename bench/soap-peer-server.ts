/**
 * The SOAP peer of the SOAP benchmark: the corpus Calculator WSDL served by node-soap on
 * 127.0.0.1, Add answering as the real service does. Prints its endpoint address.
 *
 * Env: PORT (0 for any).
 */
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { listen } from 'soap';
import { CALCULATOR_WSDL } from './shared-corpus.js';

const xml = fs.readFileSync(CALCULATOR_WSDL, 'utf8');
const calculator = { Add: (args: { intA: string; intB: string }) => ({ AddResult: Number(args.intA) + Number(args.intB) }) };
const server = http.createServer();
server.keepAliveTimeout = 60_000;
server.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () => {
  listen(server, { path: '/soap', services: { Calculator: { CalculatorSoap: calculator, CalculatorSoap12: calculator } }, xml });
  console.log(`http://127.0.0.1:${(server.address() as AddressInfo).port}/soap`);
});
