import type { App } from '../../http/types.ts';
import { SearchQuery, SearchResults } from './search.schemas.ts';
import type { SearchService } from './search.service.ts';

const tags = ['Search'];

export function searchRoutes(app: App, search: SearchService): void {
  app.get('/v1/search', {
    schema: {
      tags, summary: 'Search projects, captions, tasks, comments and documents',
      description: 'One search box across what you can see: project names, descriptions and addresses; photo and video captions; task titles and descriptions; '
        + 'comments; document names and the text of PDFs and text files (once extracted, seconds after the upload). '
        + 'Words must all match (stemmed: "crack" finds "cracked"), `"phrases"` match in order, `-word` excludes, `or` allows either; case and accents do not matter. '
        + 'The best `limit` results (at most 50) of the 200 most recently changed matches, ranked by relevance: a name or title counts more than a body. '
        + 'Each has a plain-text `snippet` with the matched words between « and ». No further pages: narrow the search with more words, `types` or `project_id`. See docs/search.md.',
      querystring: SearchQuery, response: { 200: SearchResults },
    },
  }, (req) => search.search(req.actor, req.query));
}
