import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { mentionedHandles, mentionSpans } from '../src/features/comments/comments.mentions.ts';

describe('mentionedHandles', () => {
  it('finds handles at the start, in the middle and at the end', () => {
    assert.deepEqual(mentionedHandles('@rita please check'), ['rita']);
    assert.deepEqual(mentionedHandles('thanks @rita and @joe_b'), ['rita', 'joe_b']);
    assert.deepEqual(mentionedHandles('over to\n@sam-2'), ['sam-2']);
  });

  it('takes punctuation after a handle as punctuation', () => {
    assert.deepEqual(mentionedHandles('@rita, look. @joe. (@sam) "@ann" @bo! @cy? @di: @ed; @fay-'), ['rita', 'joe', 'sam', 'ann', 'bo', 'cy', 'di', 'ed', 'fay']);
    assert.deepEqual(mentionedHandles('ask @rita-- now'), ['rita']);
  });

  it('accepts mentions after spaces, brackets, quotes and colons', () => {
    assert.deepEqual(mentionedHandles('cc:@rita [@joe] {@sam} \'@ann\' \t@bo'), ['rita', 'joe', 'sam', 'ann', 'bo']);
  });

  it('does not take e-mail addresses, URLs or words with @ as mentions', () => {
    assert.deepEqual(mentionedHandles('mail rita@example.com or rita.b+x@example.com'), []);
    assert.deepEqual(mentionedHandles('see https://social.example/@rita and a.@joe x_@sam 1@ann é@bo'), []);
    assert.deepEqual(mentionedHandles('@rita@example.com'), []);
    assert.deepEqual(mentionedHandles('@@rita'), []);
  });

  it('does not mention a handle that is only the start of a longer word', () => {
    assert.deepEqual(mentionedHandles('@ritaé @josé'), []);
    assert.deepEqual(mentionedHandles('@rita-smith'), ['rita-smith']);
  });

  it('refuses what cannot be a handle', () => {
    assert.deepEqual(mentionedHandles('@ alone, @-rita, @---'), []);
    assert.deepEqual(mentionedHandles(`@${'a'.repeat(40)}`), []);
    assert.deepEqual(mentionedHandles(`@${'a'.repeat(39)}`), ['a'.repeat(39)]);
  });

  it('counts a handle mentioned twice, in any case, once, keeping the first spelling and order', () => {
    assert.deepEqual(mentionedHandles('@Rita then @joe then @rita and @RITA.'), ['Rita', 'joe']);
  });

  it('treats a letter outside the basic plane before @ as part of a word', () => {
    assert.deepEqual(mentionedHandles('𝒜@rita'), []);
    assert.deepEqual(mentionedHandles('🙂@rita'), ['rita']);
  });

  it('finds nothing in plain text', () => {
    assert.deepEqual(mentionedHandles('no mentions here'), []);
    assert.deepEqual(mentionedHandles(''), []);
  });
});

describe('mentionSpans', () => {
  it('gives where each mention is, repeats included, without trailing dashes or e-mail addresses', () => {
    const body = 'cc:@Rita, mail rita@example.com; @rita-- and (@joe_b)';
    const spans = mentionSpans(body);
    assert.deepEqual(spans.map((s) => body.slice(s.index, s.index + s.length)), ['@Rita', '@rita', '@joe_b']);
    assert.deepEqual(spans.map((s) => s.handle), ['Rita', 'rita', 'joe_b']);
  });
});
