import { createTransport } from 'nodemailer';

export interface OutgoingMail {
  /** Our notification id: the Message-ID is derived from it, so a resend after a crash carries the same one. */
  id: string;
  to: string;
  subject: string;
  text: string;
}

export interface MailSender {
  send(mail: OutgoingMail): Promise<{ messageId: string | null }>;
  close(): void;
}

/** Socket timeouts stay well inside the delivery lease, so a hung server never outlives it. */
const timeouts = { connectionTimeout: 10_000, greetingTimeout: 10_000, socketTimeout: 30_000, dnsTimeout: 10_000 };

/**
 * SMTP through nodemailer. `url` is PETCARE_SMTP_URL (smtp://user:pass@host:port, smtps:// for
 * implicit TLS; nodemailer reads options such as `?tls.rejectUnauthorized=false` from the query).
 */
export function smtpSender(url: string, from: string): MailSender {
  const transport = createTransport({ url, ...timeouts });
  const domain = /@([^>\s]+)>?\s*$/.exec(from)?.[1] ?? 'petcare.local';
  return {
    async send(mail) {
      const info = await transport.sendMail({
        from,
        to: mail.to,
        subject: mail.subject,
        text: mail.text,
        messageId: `<${mail.id}@${domain}>`,
        headers: { 'X-Notification-Id': mail.id },
      });
      return { messageId: info.messageId ?? null };
    },
    close() {
      transport.close();
    },
  };
}

export interface SendFailure {
  /** A 5xx answer to the envelope or the message: sending it again would get the same answer. */
  permanent: boolean;
  message: string;
}

/** What a failed attempt means for the next one, with a message safe to show (no credentials). */
export function classifySendError(err: unknown): SendFailure {
  const e = err as { code?: unknown; responseCode?: unknown; response?: unknown; message?: unknown };
  const code = typeof e.code === 'string' ? e.code : undefined;
  const responseCode = typeof e.responseCode === 'number' ? e.responseCode : undefined;
  const permanent = (code === 'EENVELOPE' || code === 'EMESSAGE') && responseCode !== undefined && responseCode >= 500;
  const text = typeof e.response === 'string' && e.response ? e.response : typeof e.message === 'string' ? e.message : String(err);
  const message = [code, text.replace(/\s+/g, ' ').trim()].filter(Boolean).join(': ').slice(0, 500);
  return { permanent, message };
}
