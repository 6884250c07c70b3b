import { useEffect, useState } from 'react';
import { displayName } from '../api.ts';
import { photosApi, type CapturedAtSource, type PhotoDetail } from './photosApi.ts';

/** Where `captured_at` came from, in words (photos.schemas.ts, captured_at_source). */
const SOURCE_WORDS: Record<CapturedAtSource, string> = {
  client: 'given when it was uploaded or edited',
  exif_offset: 'from the camera, with its offset from UTC',
  exif_local: 'from the camera\'s clock, read in the time zone of where it was taken',
  exif: 'from the camera',
  upload: 'no capture time known: this is when it was uploaded',
};

/** ["Monday, March 2, 2026 at 2:00 PM", "GMT-6"] in the photo's own time zone (the viewer's when not known yet). */
function captureTimeParts(photo: Pick<PhotoDetail, 'captured_at' | 'captured_at_time_zone'>): [string, string | null] {
  const options: Intl.DateTimeFormatOptions = { dateStyle: 'full', timeStyle: 'short' };
  const when = new Date(photo.captured_at);
  try {
    const format = new Intl.DateTimeFormat(undefined, { ...options, timeZone: photo.captured_at_time_zone ?? undefined });
    const offset = new Intl.DateTimeFormat('en-US', { timeZone: photo.captured_at_time_zone ?? undefined, timeZoneName: 'shortOffset' })
      .formatToParts(when).find((p) => p.type === 'timeZoneName')?.value;
    return [format.format(when), offset ?? null];
  } catch {
    // A zone this browser does not know: the viewer's own.
    return [new Intl.DateTimeFormat(undefined, options).format(when), null];
  }
}

export function captureTime(photo: Pick<PhotoDetail, 'captured_at' | 'captured_at_time_zone'>): string {
  const [time, offset] = captureTimeParts(photo);
  return offset ? `${time} (${offset})` : time;
}

const openStreetMap = (lat: number, lon: number) => `https://www.openstreetmap.org/?mlat=${lat}&mlon=${lon}#map=18/${lat}/${lon}`;

/** When and where the photo was taken, and who uploaded it. */
export function PhotoFacts({ photo }: { photo: PhotoDetail }) {
  const [uploader, setUploader] = useState<string | null>(null);
  useEffect(() => {
    let live = true;
    setUploader(null);
    photosApi.user(photo.creator_id).then((user) => live && setUploader(displayName(user)), () => live && setUploader('someone no longer listed'));
    return () => {
      live = false;
    };
  }, [photo.creator_id]);
  const c = photo.coordinates;
  const [time, offset] = captureTimeParts(photo);
  return (
    <dl className="photo-facts">
      <dt>Taken</dt>
      <dd>
        {time}
        {offset ? <> <span className="nowrap">({offset})</span></> : null}
        <span className="hint">
          {photo.captured_at_time_zone ? `Time in ${photo.captured_at_time_zone}` : 'Time zone not known yet: shown in yours'}; {SOURCE_WORDS[photo.captured_at_source]}.
        </span>
      </dd>
      <dt>Place</dt>
      <dd>
        {c
          ? (
            <>
              {c.lat.toFixed(6)}, {c.lon.toFixed(6)}
              {c.altitude != null ? `, ${Math.round(c.altitude)} m above sea level` : ''}
              {photo.coordinates_source ? <span className="hint">{photo.coordinates_source === 'exif' ? 'From the camera\'s GPS.' : 'Given when it was uploaded or edited.'}</span> : null}
              <a href={openStreetMap(c.lat, c.lon)} target="_blank" rel="noopener noreferrer">Open in map (OpenStreetMap)</a>
            </>
          )
          : 'No GPS position'}
      </dd>
      <dt>Uploaded by</dt>
      <dd>{uploader ?? '…'}</dd>
    </dl>
  );
}
