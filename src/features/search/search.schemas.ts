import { Type, type Static } from '@sinclair/typebox';
import { Nullable, StringEnum } from '../../http/schema-types.ts';

/** What GET /v1/search finds, by the name `type` and the `types` filter use. */
export const SEARCH_TYPES = ['project', 'photo', 'video', 'task', 'comment', 'document'] as const;
export type SearchType = (typeof SEARCH_TYPES)[number];

export const SEARCH_Q_MAX = 200;
export const SEARCH_DEFAULT_LIMIT = 20;
export const SEARCH_MAX_LIMIT = 50;

export const SearchQuery = Type.Object({
  q: Type.String({
    minLength: 1, maxLength: SEARCH_Q_MAX, pattern: '\\S',
    description: `What to look for, 1..${SEARCH_Q_MAX} characters: words (every one must match, in any form: "crack" finds "cracks"), `
      + '`"a phrase"` (these words in this order), `-word` (none of these), `or` between words (either). '
      + 'Case and accents do not matter ("cafe" finds "Café"). At least one word must be looked for (not only `-exclusions`). See docs/search.md.',
    examples: ['"water damage" basement -resolved'],
  }),
  types: Type.Optional(Type.String({
    minLength: 1, maxLength: 100, pattern: `^(${SEARCH_TYPES.join('|')})(,(${SEARCH_TYPES.join('|')}))*$`,
    description: `Comma-separated: only these kinds (${SEARCH_TYPES.map((t) => `\`${t}\``).join(', ')}). Default: all.`,
  })),
  project_id: Type.Optional(Type.String({
    pattern: '^prj_[0-9a-hjkmnp-tv-z]{26}$',
    description: 'prj_…: only this project and its content (404 when you cannot see it).',
  })),
  limit: Type.Optional(Type.Integer({
    minimum: 1, maximum: SEARCH_MAX_LIMIT, default: SEARCH_DEFAULT_LIMIT,
    description: `How many results, best first, 1..${SEARCH_MAX_LIMIT}. There are no further pages: refine the words instead (docs/search.md, "Limits").`,
  })),
}, { additionalProperties: false });
export type SearchFilters = Static<typeof SearchQuery>;

export const SearchResult = Type.Object({
  type: StringEnum(SEARCH_TYPES, { description: 'The kind of object: GET it at its own endpoint by `id`.' }),
  id: Type.String({ description: 'The object\'s id (`prj_…`, `pho_…`, `vid_…`, `tsk_…`, `cmt_…`, `doc_…`).' }),
  project_id: Nullable(Type.String({ description: 'The project it belongs to (itself for a project); null for a photo not yet filed under one.' })),
  title: Type.String({
    description: 'What to show as its title: a project\'s or document\'s name, a task\'s title, a photo\'s or video\'s caption, a comment\'s first line (up to 120 characters).',
  }),
  snippet: Type.String({
    description: 'Plain text (never HTML: show it as text) around the best match, the matched words between « and » '
      + '(a « or » of the text itself is shown as ‹ or ›). Fragments are joined by " … ".',
  }),
  score: Type.Number({ minimum: 0, description: 'Relevance, higher is better; comparable only within one answer.' }),
}, { title: 'SearchResult' });
export type SearchResultView = Static<typeof SearchResult>;

export const SearchResults = Type.Object({
  data: Type.Array(SearchResult, { description: 'Best first (then most recently changed).' }),
}, { title: 'SearchResults' });
export type SearchResultsView = Static<typeof SearchResults>;
