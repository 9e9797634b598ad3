/** `model.json`: the frozen PlatformModel the server loads at start. */
import type { PlatformModel } from '../../runtime/model/platform-model.js';
import { canonicalJson } from '../../runtime/openapi/canonical-json.js';
import { GENERATED_NOTICE } from './generated-notice.js';

/** JSON has no comments: the notice goes in a top-level `$comment` member, which loaders ignore. */
export function createModelFile(model: PlatformModel): string {
  return `${canonicalJson({ $comment: GENERATED_NOTICE, ...model })}\n`;
}
