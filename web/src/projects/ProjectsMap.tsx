/**
 * The projects on a map (the `view=map` of the projects page). Loaded lazily with Leaflet and its
 * CSS, so the first screen does not carry them. Each pin is a keyboard-reachable button named
 * after its project (Leaflet's `alt`/`title`); a click or Enter opens the project.
 */
import { useEffect, useRef, useState } from 'react';
import { Link, useLocation } from 'wouter';
import { icon, latLngBounds, map as leafletMap, marker, tileLayer, type LatLngTuple } from 'leaflet';
import 'leaflet/dist/leaflet.css';
import iconRetinaUrl from 'leaflet/dist/images/marker-icon-2x.png';
import iconUrl from 'leaflet/dist/images/marker-icon.png';
import shadowUrl from 'leaflet/dist/images/marker-shadow.png';
import { ErrorMessage } from '../ErrorMessage.tsx';
import { projectsApi, type ProjectDetails, type ProjectFilters } from './projectsApi.ts';
import './projects.css';
import './map.css';

const DEFAULT_TILES = 'https://tile.openstreetmap.org/{z}/{x}/{y}.png';
const OSM_ATTRIBUTION = '&copy; <a href="https://www.openstreetmap.org/copyright">OpenStreetMap</a> contributors';

// Leaflet's default icon finds its images through its CSS, which hashed file names defeat: name them.
const pin = icon({ iconUrl, iconRetinaUrl, shadowUrl, iconSize: [25, 41], iconAnchor: [12, 41], shadowSize: [41, 41] });

/** The server's tile URL template (JOBSITE_MAP_TILES, in a <meta> of index.html), or null when tiles are off. */
function tileTemplate(): string | null {
  const meta = document.querySelector<HTMLMetaElement>('meta[name="jobsite-map-tiles"]');
  if (!meta) return DEFAULT_TILES;
  const value = meta.content.trim();
  return value === '' || value === 'off' ? null : value;
}

function attributionOf(template: string): string {
  if (template === DEFAULT_TILES) return OSM_ATTRIBUTION;
  const host = new URL(template.replace('{s}', 'a')).host.replace(/[&<>"']/g, '');
  return `Map tiles: ${host}`;
}

export default function ProjectsMap({ filters, listHref }: { filters: ProjectFilters; listHref: string }) {
  const [projects, setProjects] = useState<ProjectDetails[] | null>(null);
  const [error, setError] = useState<unknown>(null);
  const container = useRef<HTMLDivElement>(null);
  const [, navigate] = useLocation();
  const open = useRef(navigate);
  open.current = navigate;
  const key = JSON.stringify(filters);
  const tiles = tileTemplate();

  useEffect(() => {
    let live = true;
    setProjects(null);
    setError(null);
    projectsApi.allProjects(JSON.parse(key) as ProjectFilters).then((all) => live && setProjects(all), (err) => live && setError(err));
    return () => {
      live = false;
    };
  }, [key]);

  const placed = (projects ?? []).filter((p) => p.coordinates);
  useEffect(() => {
    if (!container.current || projects === null) return;
    const map = leafletMap(container.current, { worldCopyJump: true });
    if (tiles) tileLayer(tiles, { attribution: attributionOf(tiles), maxZoom: 19 }).addTo(map);
    const points = placed.map((p): LatLngTuple => [p.coordinates!.lat, p.coordinates!.lon]);
    // The view first: Leaflet makes a marker's element only once the map has one.
    if (points.length > 0) map.fitBounds(latLngBounds(points), { padding: [40, 40], maxZoom: 15 });
    else map.setView([20, 0], 2);
    placed.forEach((project, i) => {
      const m = marker(points[i]!, { icon: pin, title: project.name, alt: project.name, keyboard: true, riseOnHover: true }).addTo(map);
      // The name on hover and on keyboard focus (Leaflet opens a marker's tooltip on both).
      m.bindTooltip(project.name, { direction: 'top', offset: [0, -36] });
      const go = () => open.current(`/projects/${project.id}`);
      m.on('click', go);
      // Leaflet makes the pin a focusable role=button; Enter and Space press it, as a button's would.
      m.getElement()?.addEventListener('keydown', (e) => {
        if (e.key === 'Enter' || e.key === ' ') {
          e.preventDefault();
          go();
        }
      });
    });
    return () => {
      map.remove();
    };
  // `placed` follows `projects`.
  }, [projects, tiles]);

  if (error) return <ErrorMessage error={error} />;
  const missing = (projects?.length ?? 0) - placed.length;
  return (
    <div>
      {projects === null
        ? <p role="status">Loading the projects…</p>
        : (
          <p role="status">
            {placed.length === 0 ? 'No project has coordinates yet.' : `${placed.length} ${placed.length === 1 ? 'project' : 'projects'} on the map.`}
            {missing > 0
              ? <> {missing} {missing === 1 ? 'project has' : 'projects have'} no coordinates: <Link href={listHref}>see the list</Link>.</>
              : null}
          </p>
        )}
      {tiles ? null : <p className="muted">Map tiles are turned off on this server: the pins show where the projects are, on a plain background.</p>}
      <div ref={container} className="projects-map" role="region" aria-label="Map: each pin is a project; Tab to a pin, Enter opens it" />
    </div>
  );
}
