/** A logger that writes nothing: what a custom endpoint gets as `ctx.log` for a call made outside a request. */
import type { FastifyBaseLogger } from 'fastify';

const ignore = () => undefined;

export const silentLogger: FastifyBaseLogger = {
  level: 'silent',
  fatal: ignore,
  error: ignore,
  warn: ignore,
  info: ignore,
  debug: ignore,
  trace: ignore,
  silent: ignore,
  child: () => silentLogger,
} as unknown as FastifyBaseLogger;
