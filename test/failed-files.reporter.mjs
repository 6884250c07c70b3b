/**
 * A node:test reporter (test/run.ts adds it beside spec): the path of each test file with a failure,
 * one per line, so that run.ts can run those files once more and say which failed only once.
 */
export default async function* failedFiles(source) {
  const failed = new Set();
  for await (const event of source) {
    if (event.type !== 'test:fail' || !event.data.file || failed.has(event.data.file)) continue;
    failed.add(event.data.file);
    yield `${event.data.file}\n`;
  }
}
