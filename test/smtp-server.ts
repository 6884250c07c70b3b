/**
 * A real SMTP server on 127.0.0.1 (the `smtp-server` package) for the developer program tests:
 * it takes mail as any mail server would (with a user name and password), keeps each message,
 * and can be told to refuse the next ones.
 */
import type net from 'node:net';
import { SMTPServer } from 'smtp-server';

export interface CaughtMail {
  from: string;
  to: string[];
  raw: string;
  headers: Record<string, string>;
  /** The body, transfer-decoded (quoted-printable or base64) to text. */
  text: string;
}

function decodeBody(body: string, encoding: string): string {
  if (encoding === 'base64') return Buffer.from(body.replace(/\s+/g, ''), 'base64').toString('utf8');
  if (encoding === 'quoted-printable') {
    const bytes = body.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/gi, (_, hex: string) => `%${hex}`);
    return decodeURIComponent(bytes.replace(/%(?![0-9A-F]{2})/gi, '%25'));
  }
  return body;
}

function parse(raw: string): { headers: Record<string, string>; text: string } {
  const split = raw.indexOf('\r\n\r\n');
  const head = raw.slice(0, split).replace(/\r\n[ \t]+/g, ' ');
  const headers: Record<string, string> = {};
  for (const line of head.split('\r\n')) {
    const colon = line.indexOf(':');
    headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
  }
  const text = decodeBody(raw.slice(split + 4), (headers['content-transfer-encoding'] ?? '7bit').toLowerCase()).replace(/\r\n/g, '\n');
  return { headers, text };
}

export class MailCatcher {
  readonly messages: CaughtMail[] = [];
  /** While set, DATA is answered with this error (e.g. "451 try later"). */
  refuse: { code: number; message: string } | null = null;
  port = 0;
  private server!: SMTPServer;

  static async start(credentials = { user: 'jobsite', pass: 'mail-secret' }): Promise<MailCatcher> {
    const c = new MailCatcher();
    c.server = new SMTPServer({
      authOptional: false,
      allowInsecureAuth: true,
      disabledCommands: ['STARTTLS'],
      logger: false,
      onAuth(auth, _session, callback) {
        if (auth.username === credentials.user && auth.password === credentials.pass) return callback(null, { user: auth.username });
        return callback(new Error('Invalid user name or password'));
      },
      onData(stream, session, callback) {
        const chunks: Buffer[] = [];
        stream.on('data', (d: Buffer) => chunks.push(d));
        stream.on('end', () => {
          if (c.refuse) {
            const err = new Error(c.refuse.message) as Error & { responseCode: number };
            err.responseCode = c.refuse.code;
            return callback(err);
          }
          const raw = Buffer.concat(chunks).toString('utf8');
          c.messages.push({
            from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
            to: session.envelope.rcptTo.map((r) => r.address),
            raw,
            ...parse(raw),
          });
          callback();
        });
      },
    });
    await new Promise<void>((resolve) => c.server.listen(0, '127.0.0.1', resolve));
    c.port = (c.server.server.address() as net.AddressInfo).port;
    return c;
  }

  url(credentials = 'jobsite:mail-secret'): string {
    return `smtp://${credentials}@127.0.0.1:${this.port}`;
  }

  to(address: string): CaughtMail[] {
    return this.messages.filter((m) => m.to.includes(address));
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}
