/** The email templates of the system database as email services read them (RuntimeContext.emailTemplates). */
import type { EmailTemplate, EmailTemplateStore } from '../../services/service-kind.js';
import type { SystemDb } from './system-db.js';

function parseList(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

export function emailTemplateStore(db: SystemDb): EmailTemplateStore {
  return {
    async find(ref): Promise<EmailTemplate | null> {
      const query = db.selectFrom('email_template').selectAll();
      const row = await ('id' in ref ? query.where('id', '=', ref.id) : query.where('name', '=', ref.name)).executeTakeFirst();
      if (!row) return null;
      return {
        id: row.id,
        name: row.name,
        to: parseList(row.to),
        cc: parseList(row.cc),
        bcc: parseList(row.bcc),
        subject: row.subject,
        body_text: row.body_text,
        body_html: row.body_html,
        from_name: row.from_name,
        from_email: row.from_email,
        reply_to_name: row.reply_to_name,
        reply_to_email: row.reply_to_email,
      };
    },
  };
}
