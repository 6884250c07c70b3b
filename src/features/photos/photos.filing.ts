import type { Executor } from '../../db/database.ts';
import { boxAround, distanceMeters, fenceContains, type Point } from '../projects/projects.geofence.ts';
import { ProjectsRepository } from '../projects/projects.repository.ts';
import type { PhotoAssigner } from './photos.schemas.ts';

export interface Filing {
  projectId: string;
  by: Extract<PhotoAssigner, 'geofence' | 'nearest'>;
}

/**
 * Where a photo uploaded without a project belongs, by its position (docs/photos.md, "Photos that
 * file themselves"). Candidates are the active projects its uploader can see. The smallest
 * geofence holding the position wins; without one, the nearest project that has no fence, within
 * JOBSITE_AUTO_ASSIGN_METERS. Both lookups go through an index (a box, then the exact test on the
 * few the box lets through), so the number of projects does not matter.
 */
export class PhotoFiling {
  private readonly projects = new ProjectsRepository();

  constructor(private readonly autoAssignMeters: number) {}

  async projectFor(db: Executor, photo: { workspace_id: string; creator_id: string }, position: Point): Promise<Filing | null> {
    // Smallest fence first (then the oldest project): the first that holds the point wins.
    for (const fence of await this.projects.fencesAround(db, photo.workspace_id, photo.creator_id, position)) {
      const center = fence.lat === null || fence.lon === null ? null : { lat: fence.lat, lon: fence.lon };
      if (fenceContains(fence.geofence, center, position)) return { projectId: fence.id, by: 'geofence' };
    }
    const reach = this.autoAssignMeters;
    if (reach === 0) return null;
    let nearest: { id: string; meters: number } | null = null;
    for (const site of await this.projects.unfencedWithin(db, photo.workspace_id, photo.creator_id, boxAround(position, reach))) {
      const meters = distanceMeters(position, site);
      if (meters > reach) continue;
      if (nearest === null || meters < nearest.meters || (meters === nearest.meters && site.id < nearest.id)) nearest = { id: site.id, meters };
    }
    return nearest && { projectId: nearest.id, by: 'nearest' };
  }
}
