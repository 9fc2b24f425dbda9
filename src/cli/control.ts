// The control socket: a server that owns an embedded (PGlite) database listens on
// `<data dir>/blume.sock`, and CLI commands hand their operation to it instead of opening the
// database a second time. One JSON line in, one JSON line out. The socket is as private as the data
// directory that holds it.
import { rmSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { modeMismatch, type RunMode } from '../core/installation/service.js';
import {
  isOperationName,
  OperationError,
  runOperation,
  type OperationArgs,
  type OperationContext,
  type OperationName,
} from './operations.js';

const MAX_REQUEST_BYTES = 64 * 1024;
const ANSWER_TIMEOUT_MS = 120_000;

export function controlSocketPath(dataDir: string): string {
  return path.join(dataDir, 'blume.sock');
}

interface ControlRequest {
  op: string;
  args?: OperationArgs;
  /** The mode the command runs as; the server refuses one that disagrees with its own. */
  mode?: RunMode;
}

type ControlResponse = { ok: true; message: string } | { ok: false; error: string };

export async function startControlServer(socketPath: string, ctx: OperationContext): Promise<() => Promise<void>> {
  rmSync(socketPath, { force: true });
  const server = net.createServer((socket) => {
    let buffer = '';
    socket.setEncoding('utf8');
    socket.on('error', () => socket.destroy());
    socket.on('data', (chunk: string) => {
      buffer += chunk;
      if (buffer.length > MAX_REQUEST_BYTES) return socket.destroy();
      const newline = buffer.indexOf('\n');
      if (newline === -1) return;
      const line = buffer.slice(0, newline);
      void answer(line).then((response) => socket.end(`${JSON.stringify(response)}\n`));
    });
  });

  const answer = async (line: string): Promise<ControlResponse> => {
    try {
      const request = JSON.parse(line) as ControlRequest;
      if (!isOperationName(request.op)) return { ok: false, error: `unknown operation "${request.op}"` };
      const serverMode: RunMode = ctx.singleSite
        ? { mode: 'single', instanceId: ctx.singleSite }
        : { mode: 'platform' };
      const mismatch = request.mode && modeMismatch(serverMode, request.mode);
      if (mismatch) return { ok: false, error: mismatch };
      return { ok: true, message: await runOperation(ctx, request.op, request.args ?? {}) };
    } catch (error) {
      return {
        ok: false,
        error: error instanceof OperationError ? error.message : `failed: ${(error as Error).message}`,
      };
    }
  };

  const previousUmask = process.umask(0o077);
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(socketPath, resolve);
    });
  } finally {
    process.umask(previousUmask);
  }
  return () =>
    new Promise<void>((resolve) => {
      server.close(() => resolve());
      rmSync(socketPath, { force: true });
    });
}

/**
 * Sends one operation to the running server, waiting while it starts up (it takes the data directory
 * lock before it opens the socket); throws OperationError with the server's answer on failure.
 */
export async function callControl(
  socketPath: string,
  request: { op: OperationName; args: OperationArgs; mode: RunMode },
  isOwnerAlive: () => boolean,
  /** How long the operation may take once sent; 0 waits as long as the server works on it (a backup). */
  answerTimeoutMs = ANSWER_TIMEOUT_MS,
): Promise<string> {
  const deadline = Date.now() + 120_000;
  for (;;) {
    try {
      return await sendOnce(socketPath, request, answerTimeoutMs);
    } catch (error) {
      const notYet = error instanceof ConnectError && (error.code === 'ENOENT' || error.code === 'ECONNREFUSED');
      if (!notYet || !isOwnerAlive() || Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
}

class ConnectError extends OperationError {
  constructor(
    message: string,
    readonly code: string | undefined,
  ) {
    super(message);
  }
}

function sendOnce(socketPath: string, request: ControlRequest, answerTimeoutMs: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(socketPath);
    let buffer = '';
    socket.setEncoding('utf8');
    if (answerTimeoutMs > 0)
      socket.setTimeout(answerTimeoutMs, () =>
        socket.destroy(new Error(`the running server did not answer within ${answerTimeoutMs / 1000} s`)),
      );
    socket.on('connect', () => socket.write(`${JSON.stringify(request)}\n`));
    socket.on('data', (chunk: string) => {
      buffer += chunk;
    });
    socket.on('error', (error: NodeJS.ErrnoException) =>
      reject(new ConnectError(`cannot reach the running server at ${socketPath}: ${error.message}`, error.code)),
    );
    socket.on('end', () => {
      try {
        const response = JSON.parse(buffer) as ControlResponse;
        if (response.ok) resolve(response.message);
        else reject(new OperationError(response.error));
      } catch {
        reject(new OperationError('the running server sent an unreadable answer'));
      }
    });
  });
}
