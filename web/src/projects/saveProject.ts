import { api, type Project, type ProjectInput } from '../api.ts';
import { extrasOf, saveCrewAndTags, type ProjectExtras } from './ProjectFormExtras.tsx';
import { projectsApi } from './projectsApi.ts';

/** A merge patch the form may send: its fields, and the cover when it changed. */
type ProjectPatch = Partial<ProjectInput> & { cover_photo_id?: string | null };

export interface SavedEdit {
  project: Project;
  etag: string | null;
  /** Set when the fields were saved but a crew or tag change was refused (shown outside the form). */
  problem: unknown;
}

/**
 * An edit: the PATCH first (with If-Match, so a 412 stops everything before any change), then the
 * crew and tag changes, then the project again for its new ETag (those changes move updated_at).
 */
export async function saveProjectEdit(project: Project, etag: string | null, input: ProjectInput, extras: ProjectExtras): Promise<SavedEdit> {
  const before = extrasOf(project);
  const patch: ProjectPatch = extras.coverPhotoId === before.coverPhotoId ? input : { ...input, cover_photo_id: extras.coverPhotoId };
  const patched = await api.updateProject(project.id, patch, etag);
  try {
    if (!await saveCrewAndTags(project.id, before, extras)) return { project: patched.body, etag: patched.etag, problem: null };
  } catch (problem) {
    const latest = await projectsApi.project(project.id).catch(() => patched);
    return { project: latest.body, etag: latest.etag, problem };
  }
  const latest = await projectsApi.project(project.id);
  return { project: latest.body, etag: latest.etag, problem: null };
}

/** A new project, then its crew and tags; a refusal there leaves the project made and says so. */
export async function createProject(input: ProjectInput, extras: ProjectExtras): Promise<{ project: Project; problem: unknown }> {
  const project = await api.createProject(input);
  try {
    await saveCrewAndTags(project.id, extrasOf(null), extras);
    return { project, problem: null };
  } catch (problem) {
    return { project, problem };
  }
}
