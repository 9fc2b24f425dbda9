// Container health check: GET /up/ on the address the server binds to. Exit 0 when it answers
// 200 within the time limit, 1 otherwise (the Docker HEALTHCHECK contract).
const bind = process.env.BLUME_BIND || process.env.GUNICORN_BIND || '0.0.0.0:8080';
const match = /^(?:\[([^\]]+)\]|([^:]*)):(\d{1,5})$/.exec(bind);
if (!match) {
  console.error(`healthcheck: cannot read the bind address "${bind}"`);
  process.exit(1);
}
const listenHost = match[1] ?? match[2] ?? '';
// A wildcard bind is reached on loopback; a specific address only on itself.
const host = ['', '0.0.0.0', '::'].includes(listenHost)
  ? '127.0.0.1'
  : listenHost.includes(':')
    ? `[${listenHost}]`
    : listenHost;
try {
  const response = await fetch(`http://${host}:${match[3]}/up/`, { signal: AbortSignal.timeout(4000) });
  if (response.status !== 200) {
    console.error(`healthcheck: /up/ answered ${response.status}`);
    process.exit(1);
  }
} catch (error) {
  console.error(`healthcheck: /up/ did not answer: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
}
