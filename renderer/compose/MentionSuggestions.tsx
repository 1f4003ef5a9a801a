// Mention autocomplete (UX.md "Compose"): while the author types `@be…`, the people Tern knows
// whose handle starts so (its people search, on this computer, offline too) are offered under
// the editor. Arrow keys move, Enter or Tab puts the full handle in, Escape leaves the text as
// typed; a click works as well. The editor keeps the focus throughout (aria-activedescendant).
import { useEffect, useId, useLayoutEffect, useRef, useState, type KeyboardEvent, type RefObject } from 'react';
import type { ActorView } from '../../electron/core/ipc/author-contract';
import { call } from '../api';
import { Avatar } from '../components/Avatar';
import { strings } from '../strings';
import { handleFits, insertMention, mentionAt, searchTextOf } from './mentionQuery';

const t = strings.compose;
/** Waits for a pause in typing before asking. */
const DEBOUNCE_MS = 120;
const MAX_SHOWN = 5;

interface Mentions {
  /** Spread on the editor. */
  editorProps: {
    onKeyDown: (event: KeyboardEvent<HTMLTextAreaElement>) => void;
    onSelect: () => void;
    onBlur: () => void;
    onFocus: () => void;
    'aria-autocomplete': 'list';
    'aria-controls'?: string;
    'aria-activedescendant'?: string;
  };
  /** Call from the editor's onChange, with the new caret. */
  onTyped: (caret: number) => void;
  /** The list of choices, to render under the editor (null when closed). */
  popup: React.JSX.Element | null;
}

export function useMentionSuggestions(editor: RefObject<HTMLTextAreaElement | null>, text: string, setText: (text: string) => void): Mentions {
  const id = useId();
  const [caret, setCaret] = useState<number | null>(null);
  const [focused, setFocused] = useState(false);
  const [found, setFound] = useState<ActorView[]>([]);
  const [active, setActive] = useState(0);
  /** Where the mention the author dismissed with Escape starts. */
  const [dismissed, setDismissed] = useState<number | null>(null);
  const moveCaretTo = useRef<number | null>(null);

  const at = caret === null ? null : mentionAt(text, caret);
  const typed = at?.typed ?? null;

  useEffect(() => {
    if (typed === null) return;
    let current = true;
    const timer = setTimeout(() => {
      call('search.query', { text: searchTextOf(typed), kind: 'people', sort: 'relevance', limit: 20 }).then(
        (results) => current && setFound(results.people.map((hit) => hit.actor)),
        // Search is a help, not a step: if Tern cannot answer, the author types the handle.
        () => current && setFound([]),
      );
    }, DEBOUNCE_MS);
    return () => {
      current = false;
      clearTimeout(timer);
    };
  }, [typed]);

  // Only handles that start as typed (the search also matches names and later words).
  const choices =
    typed === null ? [] : found.filter((a): a is ActorView & { handle: string } => a.handle !== null && handleFits(a.handle, typed)).slice(0, MAX_SHOWN);
  const open = focused && at !== null && dismissed !== at.start && choices.length > 0;
  const activeIndex = Math.min(active, choices.length - 1);

  useEffect(() => setActive(0), [typed]);

  useLayoutEffect(() => {
    const to = moveCaretTo.current;
    if (to === null || !editor.current) return;
    moveCaretTo.current = null;
    editor.current.setSelectionRange(to, to);
  }, [text, editor]);

  function choose(handle: string) {
    if (!at || caret === null) return;
    const next = insertMention(text, at, caret, handle);
    moveCaretTo.current = next.caret;
    setCaret(next.caret);
    setText(next.text);
    editor.current?.focus();
  }

  function onKeyDown(event: KeyboardEvent<HTMLTextAreaElement>) {
    // Ctrl+Enter still posts; keys that finish an input method's composition are its own.
    if (!open || event.ctrlKey || event.metaKey || event.altKey || event.nativeEvent.isComposing) return;
    if (event.key === 'ArrowDown' || event.key === 'ArrowUp') {
      event.preventDefault();
      const step = event.key === 'ArrowDown' ? 1 : -1;
      setActive((activeIndex + step + choices.length) % choices.length);
    } else if (event.key === 'Enter' || event.key === 'Tab') {
      event.preventDefault();
      choose(choices[activeIndex]!.handle);
    } else if (event.key === 'Escape') {
      event.preventDefault();
      event.stopPropagation();
      setDismissed(at!.start);
    }
  }

  const optionId = (i: number) => `${id}-option-${i}`;
  const readCaret = () => setCaret(editor.current?.selectionEnd ?? null);

  return {
    editorProps: {
      onKeyDown,
      onSelect: readCaret,
      onBlur: () => setFocused(false),
      onFocus: () => setFocused(true),
      'aria-autocomplete': 'list',
      ...(open ? { 'aria-controls': `${id}-list`, 'aria-activedescendant': optionId(activeIndex) } : {}),
    },
    onTyped: (position) => {
      setCaret(position);
      setFocused(true);
    },
    popup: open ? (
      <ul id={`${id}-list`} className="mentions popover" role="listbox" aria-label={t.mentionsLabel}>
        {choices.map((actor, i) => (
          <li
            key={actor.apId}
            id={optionId(i)}
            role="option"
            aria-selected={i === activeIndex}
            className={i === activeIndex ? 'mentions__option mentions__option--active' : 'mentions__option'}
            // Chosen on mousedown, before the editor would lose the focus.
            onMouseDown={(event) => {
              event.preventDefault();
              choose(actor.handle);
            }}
          >
            <Avatar name={actor.name} id={actor.apId} size="small" src={actor.iconSrc} />
            <span className="mentions__name">{actor.name}</span>
            <span className="mentions__handle">{actor.handle}</span>
          </li>
        ))}
      </ul>
    ) : null,
  };
}
