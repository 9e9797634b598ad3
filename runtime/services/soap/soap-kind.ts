/**
 * The `soap` service kind: at build time it reads the WSDL into the service model (operations,
 * message schemas, endpoints); at run time it serves the model, reading the WSDL itself when the
 * model has no operations (a service created through the API). The SOAP client, the WSDL reader
 * and the XML code load when a SOAP service is first introspected or opened.
 */
import { PorticoError } from '../../core/errors.js';
import type { ServiceModel, SoapServiceModel } from '../../model/platform-model.js';
import type { RuntimeContext, ServiceKind } from '../service-kind.js';
import { soapConfigSchema } from './soap-config-schema.js';
import { soapOptions } from './soap-config.js';
import type { SoapServiceHandler } from './soap-handler.js';
import { soapMessages } from './soap-messages.js';
import { checkWsdlForm } from './wsdl/wsdl-source.js';

export const soapKind: ServiceKind = {
  type: 'soap',
  label: 'SOAP Service',
  group: 'Remote Service',
  description: 'A SOAP service described by a WSDL: each operation becomes a JSON endpoint.',
  configSchema: soapConfigSchema,

  checkApiConfig(config: Record<string, unknown>): void {
    // A value with a lookup or an environment reference (`{name}`, `${env:NAME}`) is checked once they are replaced, on a call.
    if (typeof config.wsdl === 'string' && config.wsdl.includes('{')) return;
    checkWsdlForm(config.wsdl, 'api');
  },

  async introspect(service: ServiceModel, ctx: RuntimeContext): Promise<SoapServiceModel> {
    const config = ctx.resolveEnv(service.config);
    const [{ SoapTransport }, { readSoapModel }] = await Promise.all([import('./call/soap-transport.js'), import('./soap-contract.js')]);
    const transport = new SoapTransport(soapOptions(config, ctx.baseDir));
    try {
      return await readSoapModel(service, config.wsdl, ctx.baseDir, transport);
    } finally {
      transport.close();
    }
  },

  async open(service: ServiceModel, ctx: RuntimeContext): Promise<SoapServiceHandler> {
    const { SoapServiceHandler } = await import('./soap-handler.js');
    try {
      return new SoapServiceHandler(service, ctx);
    } catch (error) {
      // A config the API or the build let through is the platform's problem, not the caller's.
      if (error instanceof PorticoError) throw soapMessages.configNotUsable.error(service.name, error.message);
      throw error;
    }
  },
};
