// The next page's target (http/pagination.ts nextPageTarget): the common request skips URL parsing,
// and must give exactly what URL and URLSearchParams give for every request.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { nextPageTarget } from '../src/http/pagination.ts';

const throughUrl = (target: string, cursor: string) => {
  const url = new URL(target, 'http://localhost');
  url.searchParams.set('cursor', cursor);
  return `${url.pathname}${url.search}`;
};
const cursor = 'eyJzIjoiaWQiLCJ2IjpbImV2dF8wMDAwMDAwMDAwMDAwMDAwMDAwMDAwMjZlMCJdfQ';

describe('next page links', () => {
  it('adds or replaces the cursor exactly as URLSearchParams does', () => {
    const targets = ['/v1/events?limit=50', '/v1/events', '/v1/events/', '/v1/events?', '/v1/events?limit=50&cursor=abc',
      '/v1/events?cursor=x&cursor=y', '/v1/events?a', '/v1/events?a=b=c', '/v1/events?a=&b=1', '/v1/events?a=1&&b=2',
      '/v1/projects?q=a+b', '/v1/projects?q=a%20b', '/v1/x?q=~', '/v1/x?q=%7e', '/v1/./events?limit=1', '//other.example/v1/events',
      '/v1/projects?sort=updated_at&status=all&limit=100', '/v1/projects/prj_1/members?limit=2', '/v1/x?q=é', '/v1/é?x=1', '/v1/events?x=1#f'];
    for (const target of targets) assert.equal(nextPageTarget(target, cursor), throughUrl(target, cursor), target);
  });

  it('agrees with URLSearchParams on random targets', () => {
    const chars = 'ab=&?/.%*~-_+ 1é#';
    for (let i = 0; i < 20_000; i++) {
      let target = '/v1/e';
      for (let n = Math.floor(Math.random() * 12); n > 0; n--) target += chars[Math.floor(Math.random() * chars.length)];
      let expected: string;
      try { expected = throughUrl(target, cursor); } catch { continue; }
      assert.equal(nextPageTarget(target, cursor), expected, target);
    }
  });
});
