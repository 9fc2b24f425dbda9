// A real SMTP server on loopback that keeps what it receives: the mail adapter and the features that
// send mail are tested against it. Optionally requires a password, offers STARTTLS, or speaks TLS
// from the first byte.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { SMTPServer } from 'smtp-server';

export interface ReceivedMail {
  from: string;
  to: string[];
  /** Header names lower-cased, folded lines joined. */
  headers: Map<string, string>;
  body: string;
  raw: string;
  /** Whether the connection was encrypted (STARTTLS or implicit TLS) when the mail arrived. */
  secure: boolean;
  /** The user name the client authenticated as, if any. */
  user: string | undefined;
}

export interface SmtpSinkOptions {
  /** Require AUTH with these credentials. */
  auth?: { username: string; password: string };
  /** `starttls`: plain connection offering STARTTLS; `implicit`: TLS from the first byte; `none`: plain only. */
  tls?: 'none' | 'starttls' | 'implicit';
}

export interface SmtpSink {
  port: number;
  /** PEM of the self-signed certificate (CN localhost, IP 127.0.0.1) the sink presents. */
  cert: string;
  received: ReceivedMail[];
  /**
   * Errors of single client connections (a client that hangs up mid-session, as Blume's mailer does
   * when the app closes). smtp-server emits them on the server; unheard, they would end the test process.
   */
  connectionErrors: Error[];
  /** Resolves with the next mail (or one already received beyond `seen`). */
  next(seen?: number): Promise<ReceivedMail>;
  close(): Promise<void>;
}

/** The mail's body with quoted-printable soft breaks and escapes undone, for finding links in it. */
export function decodedBody(mail: ReceivedMail): string {
  return mail.body
    .replace(/=\r?\n/g, '')
    .replace(/=([0-9A-F]{2})/g, (_m, hex: string) => String.fromCharCode(parseInt(hex, 16)));
}

let certificate: { key: string; cert: string } | undefined;

/** One self-signed certificate per test process, made with the system's openssl. */
function testCertificate(): { key: string; cert: string } {
  if (certificate) return certificate;
  const dir = mkdtempSync(path.join(tmpdir(), 'blume-smtp-cert-'));
  try {
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-days',
        '1',
        '-subj',
        '/CN=localhost',
        '-addext',
        'subjectAltName=DNS:localhost,IP:127.0.0.1',
        '-keyout',
        path.join(dir, 'key.pem'),
        '-out',
        path.join(dir, 'cert.pem'),
      ],
      { stdio: 'ignore' },
    );
    certificate = {
      key: readFileSync(path.join(dir, 'key.pem'), 'utf8'),
      cert: readFileSync(path.join(dir, 'cert.pem'), 'utf8'),
    };
    return certificate;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function parseHeaders(head: string): Map<string, string> {
  const headers = new Map<string, string>();
  for (const line of head.replace(/\r\n[ \t]+/g, ' ').split('\r\n')) {
    const colon = line.indexOf(':');
    if (colon > 0) headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
  }
  return headers;
}

/** The server settings (BLUME_MAIL_*) that send an app's mail to `sink`. */
export function sinkMailEnv(sink: SmtpSink): { BLUME_MAIL_SERVER: string; BLUME_MAIL_PORT: string } {
  return { BLUME_MAIL_SERVER: '127.0.0.1', BLUME_MAIL_PORT: String(sink.port) };
}

export async function startSmtpSink(options: SmtpSinkOptions = {}): Promise<SmtpSink> {
  const mode = options.tls ?? 'none';
  const { key, cert } = testCertificate();
  const received: ReceivedMail[] = [];
  const waiting: Array<() => void> = [];
  const server = new SMTPServer({
    secure: mode === 'implicit',
    key,
    cert,
    disabledCommands: mode === 'none' ? ['STARTTLS'] : [],
    authOptional: !options.auth,
    // The plain-only sink still takes AUTH so a password can be tested without TLS.
    allowInsecureAuth: mode === 'none',
    logger: false,
    onAuth(auth, _session, callback) {
      if (options.auth && auth.username === options.auth.username && auth.password === options.auth.password) {
        callback(null, { user: auth.username });
      } else {
        callback(new Error('Invalid username or password'));
      }
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        const raw = Buffer.concat(chunks).toString('utf8');
        const split = raw.indexOf('\r\n\r\n');
        received.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          to: session.envelope.rcptTo.map((r) => r.address),
          headers: parseHeaders(raw.slice(0, split)),
          body: raw.slice(split + 4),
          raw,
          secure: session.secure,
          user: typeof session.user === 'string' ? session.user : undefined,
        });
        for (const wake of waiting.splice(0)) wake();
        callback();
      });
    },
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const connectionErrors: Error[] = [];
  server.on('error', (error: Error) => connectionErrors.push(error));
  const port = (server.server.address() as AddressInfo).port;
  return {
    port,
    cert,
    received,
    connectionErrors,
    next: async (seen = received.length) => {
      while (received.length <= seen) await new Promise<void>((resolve) => waiting.push(resolve));
      return received[seen]!;
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
