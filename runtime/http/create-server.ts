import type { FastifyInstance } from 'fastify';
import type { PlatformModel } from '../model/platform-model.js';
import type { ServiceRoutes } from './generated-routes.js';

export interface ServerOptions {
  baseDir: string;
  routes?: ServiceRoutes[];
}

export async function createServer(model: PlatformModel, options: ServerOptions): Promise<FastifyInstance> {
  void model; void options;
  throw new Error('not implemented yet');
}
