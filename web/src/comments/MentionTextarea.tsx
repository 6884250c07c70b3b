import { useEffect, useId, useLayoutEffect, useRef, useState, type KeyboardEvent, type RefObject } from 'react';
import { personName, type Person } from './commentsApi.ts';
import { insertMention, mentionQuery, suggestPeople } from './mentions.ts';

/**
 * A textarea that suggests people while an `@handle` is typed, as a WAI-ARIA combobox with a
 * listbox popup (the textarea keeps focus; aria-activedescendant names the active option):
 * ↓/↑ move through the suggestions, Enter or Tab chooses the active one, Escape closes the list,
 * a click chooses too. Without an active option Enter and Tab do what they always do.
 * Choosing puts `@handle ` in place of what was typed.
 */
export function MentionTextarea({ id, value, onChange, people, meId, describedBy, invalid, textareaRef, onSubmitShortcut }: {
  id: string;
  value: string;
  onChange(value: string): void;
  people: Person[];
  /** Left out of the suggestions: mentioning yourself notifies nobody. */
  meId: string | null;
  describedBy?: string;
  invalid?: boolean;
  textareaRef?: RefObject<HTMLTextAreaElement | null>;
  /** Ctrl+Enter / ⌘+Enter. */
  onSubmitShortcut?(): void;
}) {
  const ownRef = useRef<HTMLTextAreaElement>(null);
  const ref = textareaRef ?? ownRef;
  const listboxId = `${useId()}-people`;
  const [caret, setCaret] = useState<number | null>(null);
  const [active, setActive] = useState<{ key: string; index: number }>({ key: '', index: -1 });
  /** The `@` whose list Escape closed: it stays closed until another mention is started. */
  const [dismissedAt, setDismissedAt] = useState<number | null>(null);
  const pendingCaret = useRef<number | null>(null);

  const query = caret === null ? null : mentionQuery(value, caret);
  const options = query ? suggestPeople(people, query.text, meId) : [];
  const open = query !== null && options.length > 0 && dismissedAt !== query.at;
  const key = query ? `${query.at}:${query.text}` : '';
  const activeIndex = open && active.key === key && active.index < options.length ? active.index : -1;
  const optionId = (i: number) => `${listboxId}-${i}`;

  useEffect(() => {
    if (dismissedAt !== null && query?.at !== dismissedAt) setDismissedAt(null);
  }, [dismissedAt, query?.at]);

  // After a choice, the caret goes after the inserted handle once the new value is in the textarea.
  useLayoutEffect(() => {
    const el = ref.current;
    if (el && pendingCaret.current !== null) {
      el.setSelectionRange(pendingCaret.current, pendingCaret.current);
      setCaret(pendingCaret.current);
      pendingCaret.current = null;
    }
  }, [value, ref]);

  useEffect(() => {
    if (activeIndex >= 0) document.getElementById(optionId(activeIndex))?.scrollIntoView({ block: 'nearest' });
  });

  function choose(person: Person) {
    if (!query) return;
    const next = insertMention(value, query, person.handle);
    pendingCaret.current = next.caret;
    onChange(next.value);
    ref.current?.focus();
  }

  function onKeyDown(e: KeyboardEvent<HTMLTextAreaElement>) {
    // Keys that finish an input method's composition are the composition's, not ours.
    if (e.nativeEvent.isComposing) return;
    if (e.key === 'Enter' && (e.ctrlKey || e.metaKey) && onSubmitShortcut) {
      e.preventDefault();
      onSubmitShortcut();
      return;
    }
    if (!open) return;
    if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
      e.preventDefault();
      const n = options.length;
      const index = e.key === 'ArrowDown' ? (activeIndex + 1) % n : activeIndex <= 0 ? n - 1 : activeIndex - 1;
      setActive({ key, index });
    } else if ((e.key === 'Enter' || e.key === 'Tab') && activeIndex >= 0 && !e.shiftKey) {
      e.preventDefault();
      choose(options[activeIndex]!);
    } else if (e.key === 'Escape') {
      e.preventDefault();
      e.stopPropagation();
      setDismissedAt(query!.at);
    }
  }

  const follow = (el: HTMLTextAreaElement) => setCaret(el.selectionStart === el.selectionEnd ? el.selectionStart : null);

  return (
    <div className="mention-box">
      <textarea
        id={id} ref={ref} value={value} rows={3}
        role="combobox" aria-autocomplete="list" aria-haspopup="listbox" aria-expanded={open} aria-controls={listboxId}
        aria-activedescendant={activeIndex >= 0 ? optionId(activeIndex) : undefined}
        aria-describedby={describedBy} aria-invalid={invalid ? true : undefined}
        onChange={(e) => { onChange(e.target.value); follow(e.target); }}
        onSelect={(e) => follow(e.currentTarget)}
        onFocus={(e) => follow(e.currentTarget)}
        onBlur={() => setCaret(null)}
        onKeyDown={onKeyDown}
      />
      <ul id={listboxId} role="listbox" aria-label="People to mention" className="mention-list" hidden={!open}>
        {open
          ? options.map((p, i) => (
            <li
              key={p.id} id={optionId(i)} role="option" aria-selected={i === activeIndex}
              // The textarea keeps focus (and its caret) while the pointer chooses.
              onMouseDown={(e) => e.preventDefault()}
              onClick={() => choose(p)}
            >
              <span className="mention-handle">@{p.handle}</span> <span className="muted">{personName(p)}</span>
            </li>
          ))
          : null}
      </ul>
    </div>
  );
}
