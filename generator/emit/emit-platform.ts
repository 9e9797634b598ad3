// STUB: replaced by the emit work. Signature is the contract.
import type { PlatformModel } from '../../runtime/model/platform-model.js';

/** Output files by path relative to the output directory (posix separators). */
export type FileMap = Map<string, string>;

export interface EmitOptions {
  /** Path from the output directory to the platform directory (posix, e.g. `..`), for resolving relative paths at run time. */
  platformDirFromOutput: string;
}

/** Lists every output file of a platform and renders it. Pure: no I/O. */
export function emitPlatform(model: PlatformModel, options: EmitOptions): FileMap {
  void model; void options;
  return new Map();
}
