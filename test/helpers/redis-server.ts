// A redis-server of a test's own, on a free port, so the test can kill -9 it, stop it (SIGSTOP: the
// connections stay open and nothing answers) and start it again. The machine's shared Redis is never
// touched. Skipped where redis-server is not installed.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { freePort } from './ports.js';

/** The test's `skip` reason when redis-server cannot run here, else false. */
export const redisServerSkip = spawnSync('redis-server', ['--version']).status === 0 ? false : 'needs redis-server';

export interface RedisServer {
  url: string;
  /** kill -9: connections break, the port refuses until `start`. */
  kill(): Promise<void>;
  /** kill -STOP: connections stay open, nothing answers until `resume`. */
  stop(): void;
  resume(): void;
  /** Starts it again on the same port (empty: it keeps nothing on disk). */
  start(): Promise<void>;
  close(): Promise<void>;
}

export async function startRedisServer(): Promise<RedisServer> {
  const port = await freePort();
  const dir = await mkdtemp(path.join(tmpdir(), 'blume-redis-'));
  let child: ChildProcess | undefined;

  const start = (): Promise<void> =>
    new Promise((resolve, reject) => {
      const started = spawn(
        'redis-server',
        ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir],
        { stdio: ['ignore', 'pipe', 'pipe'] },
      );
      child = started;
      let output = '';
      started.stdout!.on('data', (chunk: Buffer) => {
        output += chunk.toString();
        if (output.includes('Ready to accept connections')) resolve();
      });
      started.once('exit', (code) => reject(new Error(`redis-server exited (${code}): ${output}`)));
    });
  const exit = async (): Promise<void> => {
    const running = child;
    child = undefined;
    if (!running || running.exitCode !== null || running.signalCode !== null) return;
    const exited = new Promise((resolve) => running.once('exit', resolve));
    running.kill('SIGCONT');
    running.kill('SIGKILL');
    await exited;
  };

  await start();
  return {
    url: `redis://127.0.0.1:${port}`,
    kill: exit,
    stop: () => void child?.kill('SIGSTOP'),
    resume: () => void child?.kill('SIGCONT'),
    start,
    close: async () => {
      await exit();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
