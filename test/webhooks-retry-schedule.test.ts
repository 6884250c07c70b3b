import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  applyRetryAfter, MAX_ATTEMPTS, nextAttempt, parseRetryAfter, RETRY_DELAYS_MS, scheduledDelayMs,
} from '../src/features/webhooks/retry-schedule.ts';

const S = 1000;
const M = 60 * S;
const H = 60 * M;
const middle = () => 0.5; // no jitter
const lowest = () => 0;
const highest = () => 1 - Number.EPSILON;

describe('retry schedule', () => {
  it('is immediately, then 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 14 h, 20 h, 24 h: 11 attempts in all', () => {
    assert.deepEqual(RETRY_DELAYS_MS, [0, 5 * S, 5 * M, 30 * M, 2 * H, 5 * H, 10 * H, 14 * H, 20 * H, 24 * H]);
    assert.equal(MAX_ATTEMPTS, 11);
    for (let n = 1; n <= 10; n++) assert.equal(scheduledDelayMs(n, middle), RETRY_DELAYS_MS[n - 1]);
    assert.equal(scheduledDelayMs(11, middle), null);
    assert.equal(scheduledDelayMs(12, middle), null);
  });

  it('jitters each delay by up to ±20 %, except the immediate retry', () => {
    assert.equal(scheduledDelayMs(1, lowest), 0);
    assert.equal(scheduledDelayMs(1, highest), 0);
    assert.equal(scheduledDelayMs(2, lowest), 4 * S);
    assert.equal(scheduledDelayMs(2, highest), 6 * S);
    assert.equal(scheduledDelayMs(10, lowest), 24 * H * 0.8);
    assert.equal(scheduledDelayMs(10, highest), 24 * H * 1.2);
    assert.equal(scheduledDelayMs(3, () => 0.75), 5 * M * 1.1);
    // with a real random source every value stays in range
    for (let i = 0; i < 1000; i++) {
      const d = scheduledDelayMs(4)!;
      assert.ok(d >= 30 * M * 0.8 && d <= 30 * M * 1.2, String(d));
    }
  });

  it('refuses attempt numbers that are not positive integers', () => {
    assert.throws(() => scheduledDelayMs(0), RangeError);
    assert.throws(() => scheduledDelayMs(1.5), RangeError);
    assert.throws(() => scheduledDelayMs(-1), RangeError);
  });

  it('reads Retry-After as seconds or as an HTTP date', () => {
    const now = new Date('2026-03-01T12:00:00.000Z');
    assert.equal(parseRetryAfter('120', now), 120 * S);
    assert.equal(parseRetryAfter(' 0 ', now), 0);
    assert.equal(parseRetryAfter(['30', '60'], now), 30 * S);
    assert.equal(parseRetryAfter('Sun, 01 Mar 2026 12:10:00 GMT', now), 10 * M);
    assert.equal(parseRetryAfter('Sunday, 01-Mar-26 12:00:30 GMT', now), 30 * S);
    assert.equal(parseRetryAfter('Sun, 01 Mar 2026 11:00:00 GMT', now), 0, 'a date in the past means now');
    for (const bad of [undefined, null, '', '-5', '1.5', 'soon', '12 34', '2026-03-01', '99999999999999999999']) {
      assert.equal(parseRetryAfter(bad, now), null, String(bad));
    }
  });

  it('clamps Retry-After between the scheduled delay and twice it', () => {
    assert.equal(applyRetryAfter(5 * M, null), 5 * M);
    assert.equal(applyRetryAfter(5 * M, 7 * M), 7 * M);
    assert.equal(applyRetryAfter(5 * M, 1 * S), 5 * M);
    assert.equal(applyRetryAfter(5 * M, 3 * H), 10 * M);
    assert.equal(applyRetryAfter(0, 60 * S), 0, 'the immediate retry stays immediate');
  });

  it('decides the next attempt from the attempt number and Retry-After', () => {
    assert.deepEqual(nextAttempt(1, null, middle), { retry: true, delayMs: 0 });
    assert.deepEqual(nextAttempt(2, 8 * S, middle), { retry: true, delayMs: 8 * S });
    assert.deepEqual(nextAttempt(2, 60 * S, middle), { retry: true, delayMs: 10 * S });
    assert.deepEqual(nextAttempt(3, null, lowest), { retry: true, delayMs: 4 * M });
    assert.deepEqual(nextAttempt(10, null, middle), { retry: true, delayMs: 24 * H });
    assert.deepEqual(nextAttempt(11, 5 * S, middle), { retry: false });
  });
});
