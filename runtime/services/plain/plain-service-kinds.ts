/**
 * The email kinds (local files and SMTP). The types the runtime serves itself (system, api_docs,
 * user) are declared by runtime/system/internal-service-types.ts.
 */
import { localEmailKind } from '../email/local-email-kind.js';
import { smtpEmailKind } from '../email/smtp-email-kind.js';
import type { ServiceKind } from '../service-kind.js';

export const plainServiceKinds: ServiceKind[] = [localEmailKind, smtpEmailKind];
