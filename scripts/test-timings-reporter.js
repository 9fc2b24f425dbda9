// A reporter for Node's test runner that writes one JSON line per finished test (its file, nesting,
// duration, outcome and when it ended), for scripts/run-tests.js to rank the slowest files and count
// the results after the run.
export default async function* timings(source) {
  for await (const event of source) {
    if (event.type !== 'test:pass' && event.type !== 'test:fail') continue;
    const { data } = event;
    const outcome = event.type === 'test:fail' ? 'failed' : data.skip || data.todo ? 'skipped' : 'passed';
    yield `${JSON.stringify({
      file: data.file,
      nesting: data.nesting,
      suite: data.details?.type === 'suite',
      ms: data.details?.duration_ms ?? 0,
      at: Date.now(),
      outcome,
    })}\n`;
  }
}
