/** Starts a generated server: loads its frozen model, builds the app, listens on HOST:PORT. */
import type { ServiceRoutes } from './generated-routes.js';

export interface RunServerOptions {
  /** URL of the generated model.json. */
  modelUrl: URL;
  /** URL of the platform directory (relative paths in configs resolve against it). */
  baseUrl: URL;
  /** Precompiled route schemas of the database services. */
  routes: ServiceRoutes[];
}

export async function runServer(options: RunServerOptions): Promise<void> {
  void options;
  throw new Error('not implemented yet');
}
